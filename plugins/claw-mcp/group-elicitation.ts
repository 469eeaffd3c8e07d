/**
 * Elicitations of a group's MCP servers, shown to the group's clients: each
 * is announced (`mcp.elicitation`) to every client of the group and listed
 * by `mcp.elicitations`; the first valid answer (`mcp.answer`) goes to the
 * server, and everyone hears it ended (`mcp.elicitation.ended`). Nobody
 * answering before the deadline cancels it with the reason; a group given
 * up cancels its own. When no client that can answer (one that declared the
 * `mcp-elicitation:1` client feature in its hello) follows the group, the
 * question is declined at once with that reason: the server does not wait
 * out a deadline nobody could meet. Pending ones live with the connection that asked (in
 * the owning worker), as the server's request does.
 */
import { randomUUID } from 'node:crypto';
import { ErrorCodes, LIMITS, XdogError, type XdogConfig } from '../../core/index.js';
import { checkElicitationAnswer, type McpElicitation, type McpElicitationAnswer, type McpElicitationValue } from '../mcp/index.js';

/** One elicitation as clients get it. */
export interface GroupElicitation extends McpElicitation {
  id: string;
  group: string;
  /** Epoch ms after which it is cancelled unanswered. */
  expiresAt: number;
}

/** A client's answer to `mcp.answer`. */
export type ElicitationReply = { action: 'accept'; content: Record<string, McpElicitationValue> } | { action: 'decline' | 'cancel'; reason?: string };

interface Pending {
  record: GroupElicitation;
  settle(answer: McpElicitationAnswer): void;
}

export const ElicitationNotifications = {
  /** `{ group, elicitation }`: a server of the group asks the person something. */
  asked: 'mcp.elicitation',
  /** `{ group, id, action }`: it was answered (by any client), declined, cancelled or timed out. */
  ended: 'mcp.elicitation.ended',
} as const;

export class GroupElicitations {
  readonly #pending = new Map<string, Pending>();

  constructor(
    private readonly config: () => XdogConfig,
    private readonly now: () => number,
    private readonly publish: (group: string, method: string, params: unknown) => void,
    /** True when a client following the group can answer (see GatewayHost.followedWith). */
    private readonly answerable: (group: string) => boolean,
  ) {}

  /** The `elicit` handler of `group`'s servers: waits for a client's answer, the deadline or the group's end. */
  handler(group: string): (request: McpElicitation, signal: AbortSignal) => Promise<McpElicitationAnswer> {
    return (request, signal) => {
      if (this.list(group).length >= LIMITS.mcpElicitationsPending) {
        return Promise.resolve({ action: 'decline', reason: `group ${group} already has ${LIMITS.mcpElicitationsPending} questions waiting for a person` });
      }
      if (!this.answerable(group)) {
        return Promise.resolve({ action: 'decline', reason: `no client that can answer is connected to group ${group}; open \`xdog claw tui${group === 'main' ? '' : ` --group ${group}`}\` to answer the next one` });
      }
      const timeout = Math.min(LIMITS.mcpElicitationSeconds, this.config().mcp_servers?.[request.server]?.timeout ?? LIMITS.mcpDefaultTimeoutSeconds);
      const record: GroupElicitation = { ...request, id: randomUUID(), group, expiresAt: this.now() + timeout * 1000 };
      return new Promise<McpElicitationAnswer>((resolve) => {
        const end = (answer: McpElicitationAnswer): void => {
          if (!this.#pending.delete(record.id)) return;
          signal.removeEventListener('abort', onAbort);
          this.publish(group, ElicitationNotifications.ended, { group, id: record.id, action: answer.action });
          resolve(answer);
        };
        // The deadline (or the server's own cancel) aborts the signal: nobody answered in time.
        const onAbort = (): void => end({ action: 'cancel', reason: 'nobody answered in time' });
        this.#pending.set(record.id, { record, settle: end });
        signal.addEventListener('abort', onAbort, { once: true });
        this.publish(group, ElicitationNotifications.asked, { group, elicitation: record });
        if (signal.aborted) onAbort();
      });
    };
  }

  /** The group's elicitations waiting for a person, oldest first. */
  list(group: string): GroupElicitation[] {
    return [...this.#pending.values()].map((pending) => pending.record).filter((record) => record.group === group);
  }

  /** Answers one; an invalid form answer is refused and the question keeps waiting. */
  answer(group: string, id: string, reply: ElicitationReply): { id: string; action: string } {
    const pending = this.#pending.get(id);
    if (!pending || pending.record.group !== group) {
      throw new XdogError(ErrorCodes.NOT_FOUND, `no MCP question ${id} waits in group ${group}`, { hint: 'it was answered elsewhere, cancelled or timed out; mcp.elicitations lists those waiting' });
    }
    if (reply.action === 'accept') {
      const content = checkElicitationAnswer(pending.record.server, pending.record, reply.content);
      pending.settle({ action: 'accept', content });
    } else pending.settle({ action: reply.action, reason: reply.reason ?? `the person chose ${reply.action}` });
    return { id, action: reply.action };
  }

  /** Cancels every question of a group the gateway gives up. */
  cancelGroup(group: string, reason: string): void {
    for (const record of this.list(group)) this.#pending.get(record.id)?.settle({ action: 'cancel', reason });
  }
}
