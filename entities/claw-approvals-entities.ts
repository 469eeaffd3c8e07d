/**
 * Durable tool approvals of claw sessions (plugins/approvals): one row per
 * asked tool call. `status` is answered once, by compare-and-set
 * (pending → approved | denied | edited | expired); `run_state` makes the
 * call run at most once (waiting → running, claimed by compare-and-set by
 * whichever of the live run or a resumed run gets there first).
 */
import { EntitySchema } from 'typeorm';
import { bigintNumber } from './columns.js';

export interface ClawApprovalRow {
  id: number;
  group: string;
  sessionId: string;
  toolCallId: string;
  toolName: string;
  /** The arguments as asked, JSON. */
  args: string;
  reason: string;
  status: string;
  /** The deny reason, or the edited arguments (JSON). */
  answer: string | null;
  answeredBy: string | null;
  runState: string;
  createdAt: number;
  expiresAt: number;
  answeredAt: number | null;
}

export const ClawApprovalEntity = new EntitySchema<ClawApprovalRow>({
  name: 'ClawApproval',
  tableName: 'claw_approvals',
  columns: {
    id: { type: 'integer', primary: true, generated: 'increment' },
    group: { name: 'group_name', type: 'varchar', length: 64 },
    sessionId: { name: 'session_id', type: 'varchar', length: 36 },
    toolCallId: { name: 'tool_call_id', type: 'varchar', length: 256 },
    toolName: { name: 'tool_name', type: 'varchar', length: 256 },
    args: { type: 'text' },
    reason: { type: 'text' },
    status: { type: 'varchar', length: 16 },
    answer: { type: 'text', nullable: true },
    answeredBy: { name: 'answered_by', type: 'varchar', length: 200, nullable: true },
    runState: { name: 'run_state', type: 'varchar', length: 16 },
    createdAt: { name: 'created_at', type: 'bigint', transformer: bigintNumber },
    expiresAt: { name: 'expires_at', type: 'bigint', transformer: bigintNumber },
    answeredAt: { name: 'answered_at', type: 'bigint', nullable: true, transformer: bigintNumber },
  },
  uniques: [{ name: 'uq_claw_approvals_call', columns: ['sessionId', 'toolCallId'] }],
  indices: [{ name: 'ix_claw_approvals_group_status', columns: ['group', 'status'] }],
  foreignKeys: [{ target: 'ClawSession', columnNames: ['session_id'], referencedColumnNames: ['id'], name: 'fk_claw_approvals_session', onDelete: 'CASCADE' }],
});

/**
 * A rule a person added with "always allow" on an approval: the group's
 * agents may run this tool (any arguments), or for bash exactly this command
 * (`argv`, JSON), without asking. The config's rules are judged first, so a
 * learned rule only replaces the mode's default of asking.
 */
export interface ClawApprovalRuleRow {
  id: number;
  group: string;
  toolName: string;
  argv: string | null;
  approvalId: number;
  createdBy: string;
  createdAt: number;
}

export const ClawApprovalRuleEntity = new EntitySchema<ClawApprovalRuleRow>({
  name: 'ClawApprovalRule',
  tableName: 'claw_approval_rules',
  columns: {
    id: { type: 'integer', primary: true, generated: 'increment' },
    group: { name: 'group_name', type: 'varchar', length: 64 },
    toolName: { name: 'tool_name', type: 'varchar', length: 256 },
    argv: { type: 'text', nullable: true },
    approvalId: { name: 'approval_id', type: 'integer' },
    createdBy: { name: 'created_by', type: 'varchar', length: 200 },
    createdAt: { name: 'created_at', type: 'bigint', transformer: bigintNumber },
  },
  indices: [{ name: 'ix_claw_approval_rules_group', columns: ['group'] }],
});

export const CLAW_APPROVALS_ENTITIES = [ClawApprovalEntity, ClawApprovalRuleEntity];
