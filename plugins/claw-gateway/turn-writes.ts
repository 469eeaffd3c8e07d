/**
 * Store writes a tool stages for its result: they commit in the same
 * transaction as the tool result entry (SessionWriter), so after a crash or
 * a failed write the store holds both or neither. A group's agents carry one
 * TurnWrites in their tool context; a tool stages with the call's id.
 */
import type { Agent } from '../../core/index.js';
import type { Sql } from '../sessions/tokens.js';

/** The tool-context key of a claw session's TurnWrites. */
export const CLAW_TURN_WRITES_TOOL_CTX = 'claw_turn_writes';

export type TurnWrite = (sql: Sql) => Promise<void>;

export class TurnWrites {
  readonly #staged = new Map<string, TurnWrite[]>();
  readonly #outcomes = new Map<string, { done: Promise<boolean>; settle(ok: boolean): void }>();
  #withMessage?: (toolCallId: string, write: TurnWrite) => Promise<boolean>;

  /**
   * Commits `write` in the same transaction as the assistant message that
   * made call `toolCallId`, when that message is not stored yet (a pending
   * approval: a crash leaves both or neither). Resolves false when it is
   * already stored (a resumed run): the caller writes on its own. Rejects
   * when the commit failed.
   */
  withCallMessage(toolCallId: string, write: TurnWrite): Promise<boolean> {
    return this.#withMessage ? this.#withMessage(toolCallId, write) : Promise.resolve(false);
  }

  /** Where `withCallMessage` goes (the session writer of the agent). */
  holdMessagesWith(commit: (toolCallId: string, write: TurnWrite) => Promise<boolean>): void {
    this.#withMessage = commit;
  }

  /** Stages `write` to commit with the result of tool call `toolCallId`. */
  stage(toolCallId: string, write: TurnWrite): void {
    const writes = this.#staged.get(toolCallId) ?? [];
    writes.push(write);
    this.#staged.set(toolCallId, writes);
    this.#outcome(toolCallId);
  }

  /** The writes staged for the call (removed from here): the caller runs them in the result's transaction, then calls `settle`. */
  take(toolCallId: string): TurnWrite[] {
    const writes = this.#staged.get(toolCallId) ?? [];
    this.#staged.delete(toolCallId);
    return writes;
  }

  /** Tells those waiting (`committed`) whether the call's writes committed. */
  settle(toolCallId: string, ok: boolean): void {
    this.#outcomes.get(toolCallId)?.settle(ok);
  }

  /** Resolves true once the call's staged writes committed, false when they did not (or none were staged). */
  committed(toolCallId: string): Promise<boolean> {
    const outcome = this.#outcomes.get(toolCallId);
    if (!outcome) return Promise.resolve(false);
    return outcome.done.finally(() => this.#outcomes.delete(toolCallId));
  }

  /** Drops what was never written (the agent is going away): waiters hear false. */
  clear(): void {
    this.#staged.clear();
    for (const outcome of this.#outcomes.values()) outcome.settle(false);
    this.#outcomes.clear();
  }

  #outcome(toolCallId: string): void {
    if (this.#outcomes.has(toolCallId)) return;
    let settle!: (ok: boolean) => void;
    const done = new Promise<boolean>((resolve) => (settle = resolve));
    this.#outcomes.set(toolCallId, { done, settle });
  }
}

const byAgent = new WeakMap<Agent, TurnWrites>();

/** The TurnWrites of a claw session's agent (services wait on `committed` before they announce a change). */
export function turnWritesOfAgent(agent: Agent): TurnWrites | undefined {
  return byAgent.get(agent);
}

/** Registers the TurnWrites of an agent (GroupRuntime does, when it builds one). */
export function bindTurnWrites(agent: Agent, writes: TurnWrites): void {
  byAgent.set(agent, writes);
}

/** The TurnWrites in a tool call's context, if it runs in a claw session. */
export function turnWritesOf(toolCtx: Record<string, unknown>): TurnWrites | undefined {
  const writes = toolCtx[CLAW_TURN_WRITES_TOOL_CTX];
  return writes instanceof TurnWrites ? writes : undefined;
}
