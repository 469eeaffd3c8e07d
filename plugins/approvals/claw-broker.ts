/**
 * The claw group's ApprovalBroker: an asked call becomes a pending row in
 * the store (after the session writer stored the assistant message that made
 * it: its `beforeToolCall` tap runs first), `approval.requested` goes to the
 * group's subscribers, and the run waits until the row is answered, by any
 * client through any worker (the store is polled, so no worker's memory is
 * needed), or expires. The answer is taken by claiming the call
 * (compare-and-set), so it runs at most once. When the gateway stops under a
 * waiting run the row stays pending; a client's abort denies it.
 *
 * The run that claims the answer publishes `approval.resolved`, whichever
 * worker took the answer: it runs on the group's owner, whose notifications
 * reach the clients of every worker (relay.ts), so each client hears of an
 * answer exactly once.
 */
import { ErrorCodes, XdogError, type ApprovalAnswer, type ApprovalBroker, type ApprovalRequest, type Clock } from '../../core/index.js';
import type { SessionStore } from '../sessions/tokens.js';
import { answerApproval, answerOf, claimApprovalNow, getApproval, insertApproval, type ApprovalRecord } from './approval-store.js';

/** How often a waiting run reads its row (answers may come through another worker). */
const POLL_MS = 200;

export const ApprovalNotifications = { requested: 'approval.requested', resolved: 'approval.resolved' } as const;

export interface ClawBrokerOptions {
  store: SessionStore;
  group: string;
  clock: Clock;
  expireMinutes: number;
  /** The tool-context key under which the group's agents carry their session id. */
  sessionKey: string;
  publish(sessionId: string, method: string, params: unknown): void;
  /** True while the gateway ends the group's runs (stop, hand-off): a wait cut then leaves the row pending. */
  ending(): boolean;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

export class ClawApprovalBroker implements ApprovalBroker {
  readonly #requested = new Set<(record: ApprovalRecord) => void>();

  constructor(private readonly options: ClawBrokerOptions) {}

  /** Calls `listener` with each approval asked from now on (a channel sends its conversation the card); returns the unsubscribe. */
  onRequested(listener: (record: ApprovalRecord) => void): () => void {
    this.#requested.add(listener);
    return () => this.#requested.delete(listener);
  }

  async request(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    const { store, group, clock, expireMinutes, sessionKey } = this.options;
    const sessionId = request.toolCtx[sessionKey];
    // An agent outside the group's sessions (a child agent) has no transcript to hold a pending approval: nobody can be asked.
    if (typeof sessionId !== 'string') return { action: 'deny', reason: `it needs a person's approval (${request.reason}), but this agent runs outside a claw session, where an approval cannot be kept; ask the group's agent to make the call` };
    const now = clock.now();
    const record = await insertApproval(store, {
      group,
      sessionId,
      toolCallId: request.toolCall.id,
      toolName: request.toolCall.name,
      args: request.args,
      reason: request.reason,
      now,
      expiresAt: now + expireMinutes * 60_000,
    });
    if (record.status === 'pending') {
      this.options.publish(sessionId, ApprovalNotifications.requested, { group, approval: record });
      for (const listener of this.#requested) listener(record);
    }
    return this.#wait(record, signal);
  }

  async #wait(first: ApprovalRecord, signal: AbortSignal): Promise<ApprovalAnswer> {
    const { store, clock, expireMinutes } = this.options;
    for (;;) {
      const current = await getApproval(store, first.id);
      if (current.status !== 'pending') {
        if (!(await claimApprovalNow(store, current.id))) throw new XdogError(ErrorCodes.CONFLICT, `approval ${current.id}: its call was already taken by another run, so it is not run again`);
        this.#published(current);
        return answerOf(current)!;
      }
      if (signal.aborted) {
        if (!this.options.ending()) {
          const denied = await this.#resolve(current.id, { action: 'deny', reason: 'the run was aborted before anyone answered' });
          if (denied) this.#published(denied);
        }
        throw new XdogError(ErrorCodes.ABORTED, 'the run was aborted while it waited for an approval');
      }
      if (clock.now() >= current.expiresAt) {
        await this.#resolve(current.id, { action: 'expire', reason: `no answer in ${expireMinutes} minutes` });
        continue;
      }
      await sleep(POLL_MS, signal);
    }
  }

  #published(record: ApprovalRecord): void {
    this.options.publish(record.sessionId, ApprovalNotifications.resolved, { group: record.group, approval: record });
  }

  /** The gateway's own answer (expiry, abort); undefined when a client's answer got there first (it stands). */
  async #resolve(id: number, answer: { action: 'expire'; reason: string } | { action: 'deny'; reason: string }): Promise<ApprovalRecord | undefined> {
    try {
      return await answerApproval(this.options.store, id, answer, 'gateway', this.options.clock.now());
    } catch (error) {
      if (!XdogError.is(error, ErrorCodes.CONFLICT)) throw error;
      return undefined;
    }
  }
}
