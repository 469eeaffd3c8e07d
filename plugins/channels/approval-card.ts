/**
 * The approval card a channel conversation gets when its turn's run waits
 * for a person: which call, why, and the replies that answer it. In text the
 * arguments are a bounded preview, marked when shortened (the whole call is
 * one `xdog claw approvals show ID` away); a transport with a structured
 * form (`sendApproval`, the webhook) gets them whole.
 */
import { LIMITS } from '../../core/index.js';
import type { ApprovalRecord } from '../approvals/index.js';
import type { ApprovalCard } from './contract.js';

export function approvalCardOf(record: ApprovalRecord): ApprovalCard {
  return {
    id: record.id,
    tool: record.toolName,
    args: record.args,
    reason: record.reason,
    expiresAt: record.expiresAt,
    replies: { approve: `approve ${record.id}`, deny: `deny ${record.id} REASON` },
  };
}

export function approvalCardText(card: ApprovalCard): string {
  const whole = card.tool === 'bash' && typeof card.args.command === 'string' ? card.args.command : JSON.stringify(card.args);
  const chars = [...whole];
  const preview = chars.length > LIMITS.channelApprovalPreviewChars ? `${chars.slice(0, LIMITS.channelApprovalPreviewChars).join('')}… (shortened: \`xdog claw approvals show ${card.id}\` has it all)` : whole;
  return [
    `Approval ${card.id} needed: ${card.tool} ${preview}`,
    `Why: ${card.reason}`,
    `Reply "${card.replies.approve}" to run it, or "${card.replies.deny}" to refuse (expires ${new Date(card.expiresAt).toISOString()}).`,
  ].join('\n');
}
