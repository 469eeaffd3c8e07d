/**
 * Approvals answered from a chat: a message `approve 7` or `deny 7 REASON`
 * from an allowed sender of a channel answers approval 7 of that channel's
 * group at once (it never waits in the channel's inbox behind the run that
 * waits for it). The reply says what happened, or who answered first.
 */
import { ErrorCodes, XdogError, describeError, type ApprovalAnswer } from '../../core/index.js';
import type { GatewayHost } from '../claw-gateway/tokens.js';
import { answerApproval, getApproval, type ApprovalRecord } from './approval-store.js';
import { approvalWaitsOf } from './approval-waits.js';
import type { LearnedRule } from './policy.js';

export interface ApprovalReply {
  id: number;
  answer: ApprovalAnswer;
}

/** The approval command a chat message is, or undefined for an ordinary message. */
export function parseApprovalReply(text: string): ApprovalReply | undefined {
  const match = /^\s*(approve|deny)\s+#?(\d{1,12})(?:\s+([\s\S]*\S))?\s*$/i.exec(text);
  if (!match) return undefined;
  const id = Number(match[2]);
  if (match[1]!.toLowerCase() === 'approve') return match[3] ? undefined : { id, answer: { action: 'approve' } };
  return { id, answer: { action: 'deny', reason: match[3] ?? 'denied from the chat' } };
}

/**
 * Answers in the store (compare-and-set), then wakes the run that waits for
 * it, wherever it runs (approval-waits.ts). Subscribers hear of it from the
 * run that waits for the row (claw-broker.ts), on the group's owner, so an
 * answer taken by any worker is published once, to the clients of all.
 */
export async function answerStored(host: GatewayHost, id: number, answer: ApprovalAnswer, by: string, learned?: readonly LearnedRule[]): Promise<ApprovalRecord> {
  const record = await answerApproval(host.store, id, answer, by, host.clock.now(), learned);
  approvalWaitsOf(host).answered(id);
  return record;
}

/** Answers `reply` for `group` as `by`; returns the text to send back. */
export async function answerFromChannel(host: GatewayHost, group: string, reply: ApprovalReply, by: string): Promise<string> {
  try {
    const record = await getApproval(host.store, reply.id);
    if (record.group !== group) return `approval ${reply.id} belongs to another group; answer it there`;
    const answered = await answerStored(host, reply.id, reply.answer, by);
    return `approval ${answered.id} (${answered.toolName}): ${answered.status}`;
  } catch (error) {
    if (XdogError.is(error, ErrorCodes.CONFLICT) || XdogError.is(error, ErrorCodes.NOT_FOUND)) return error.message;
    return `approval ${reply.id} could not be answered: ${describeError(error)}`;
  }
}
