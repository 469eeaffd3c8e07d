/** Rendering and the answerer's name for `xdog claw approvals …`. */
import os from 'node:os';
import { Args } from '@oclif/core';
import type { ApprovalRecord, LearnedRuleRecord } from '../../../plugins/approvals/index.js';

export const approvalIdArg = Args.integer({ description: 'the approval id (see xdog claw approvals list)', required: true, min: 1 });

/** How the CLI names who answered. */
export function answererName(): string {
  let user = 'unknown';
  try {
    user = os.userInfo().username;
  } catch {
    // no passwd entry: keep "unknown"
  }
  return `cli:${user}`;
}

/** One line per approval. */
export function renderApprovalLine(approval: ApprovalRecord): string {
  const args = JSON.stringify(approval.args);
  return `${approval.id}  ${approval.status.padEnd(8)} ${approval.group}  ${approval.toolName} ${args.length > 80 ? `${args.slice(0, 79)}…` : args}`;
}

/** The whole approval, arguments in full. */
export function renderApproval(approval: ApprovalRecord): string {
  const lines = [
    `approval ${approval.id}: ${approval.status}${approval.answeredBy ? ` by ${approval.answeredBy}` : ''}`,
    `group ${approval.group}, session ${approval.sessionId}, call ${approval.toolCallId}`,
    `tool: ${approval.toolName}`,
    `why asked: ${approval.reason}`,
    `arguments:\n${JSON.stringify(approval.args, null, 2)}`,
    `expires: ${new Date(approval.expiresAt).toISOString()}`,
  ];
  if (approval.denyReason) lines.push(`reason: ${approval.denyReason}`);
  if (approval.editedArgs) lines.push(`runs with:\n${JSON.stringify(approval.editedArgs, null, 2)}`);
  return lines.join('\n');
}

/** One line per learned rule: its id, group, and what it allows. */
export function renderLearnedRule(rule: LearnedRuleRecord): string {
  const what = rule.argv ? `bash ${JSON.stringify(rule.argv.join(' '))} (exactly)` : `${rule.tool} (any arguments)`;
  return `rule ${rule.id}  ${rule.group}  ${what}  from approval ${rule.approvalId} by ${rule.createdBy}`;
}
