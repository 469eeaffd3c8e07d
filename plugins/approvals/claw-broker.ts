/**
 * The claw group's ApprovalBroker: an asked call becomes a pending row in
 * the store, in the same transaction as the assistant message that made it
 * (the session writer holds that message until then: a crash leaves both or
 * neither; TurnWrites.withCallMessage), `approval.requested` goes to the
 * group's subscribers, and the run waits until the row is answered, by any
 * client through any worker (the answer wakes it, in process or by NOTIFY,
 * and it reads the row: no worker's memory is needed; approval-waits.ts), or
 * expires. The answer is taken by claiming the call
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
import type { ApprovalWaits } from './approval-waits.js';
import { turnWritesOf } from '../claw-gateway/tokens.js';
import { answerApproval, answerOf, claimApprovalNow, getApproval, insertApproval, insertApprovalIn, type ApprovalRecord, type NewApproval } from './approval-store.js';

export const ApprovalNotifications = { requested: 'approval.requested', resolved: 'approval.resolved' } as const;

export interface ClawBrokerOptions {
  store: SessionStore;
  group: string;
  clock: Clock;
  expireMinutes: number;
  /** The tool-context key under which the group's agents carry their session id. */
  sessionKey: string;
  publish(sessionId: string, method: string, params: unknown): void;
  /** What wakes a waiting run when its row may have been answered. */
  waits: ApprovalWaits;
  /** True while the gateway ends the group's runs (stop, hand-off): a wait cut then leaves the row pending. */
  ending(): boolean;
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
    const row: NewApproval = {
      group,
      sessionId,
      toolCallId: request.toolCall.id,
      toolName: request.toolCall.name,
      args: request.args,
      reason: request.reason,
      now,
      expiresAt: now + expireMinutes * 60_000,
    };
    let joined: ApprovalRecord | undefined;
    const withMessage = await turnWritesOf(request.toolCtx)?.withCallMessage(request.toolCall.id, async (sql) => {
      joined = await insertApprovalIn(sql, row);
    });
    // A resumed run's message is stored already: its row exists, and insertApproval finds it.
    const record = withMessage && joined ? joined : await insertApproval(store, row);
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
      await this.options.waits.wait(current.id, signal, current.expiresAt - clock.now());
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
