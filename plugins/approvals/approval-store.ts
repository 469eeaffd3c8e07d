/**
 * Approvals in the claw store (`claw_approvals`, entities/claw-approvals-entities.ts).
 * Every change is a compare-and-set in one statement, so with any number of
 * clients and workers exactly one answer wins and a call is claimed for
 * running exactly once; the loser reads the row back to say who won.
 */
import { ErrorCodes, XdogError, type ApprovalAnswer } from '../../core/index.js';
import type { SessionStore, Sql } from '../sessions/tokens.js';
import type { LearnedRule } from './policy.js';

export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'edited' | 'expired';

/** One approval as clients see it. */
export interface ApprovalRecord {
  id: number;
  group: string;
  sessionId: string;
  toolCallId: string;
  toolName: string;
  args: Record<string, unknown>;
  reason: string;
  status: ApprovalStatus;
  /** The deny (or expiry) reason. */
  denyReason?: string;
  /** The arguments the call runs with instead (status edited). */
  editedArgs?: Record<string, unknown>;
  answeredBy: string | null;
  /** waiting: not run yet; running: claimed by a run (it ran, or was cut with an unknown effect). */
  runState: 'waiting' | 'running';
  createdAt: number;
  expiresAt: number;
  answeredAt: number | null;
}

interface Row {
  id: number | string;
  group_name: string;
  session_id: string;
  tool_call_id: string;
  tool_name: string;
  args: string;
  reason: string;
  status: string;
  answer: string | null;
  answered_by: string | null;
  run_state: string;
  created_at: number | string;
  expires_at: number | string;
  answered_at: number | string | null;
}

const COLUMNS = 'id, group_name, session_id, tool_call_id, tool_name, args, reason, status, answer, answered_by, run_state, created_at, expires_at, answered_at';

function toRecord(row: Row): ApprovalRecord {
  const status = row.status as ApprovalStatus;
  const record: ApprovalRecord = {
    id: Number(row.id),
    group: row.group_name,
    sessionId: row.session_id,
    toolCallId: row.tool_call_id,
    toolName: row.tool_name,
    args: JSON.parse(row.args) as Record<string, unknown>,
    reason: row.reason,
    status,
    answeredBy: row.answered_by,
    runState: row.run_state === 'running' ? 'running' : 'waiting',
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    answeredAt: row.answered_at === null ? null : Number(row.answered_at),
  };
  if ((status === 'denied' || status === 'expired') && row.answer !== null) record.denyReason = row.answer;
  if (status === 'edited' && row.answer !== null) record.editedArgs = JSON.parse(row.answer) as Record<string, unknown>;
  return record;
}

/** The answer a resolved approval stands for (expired is a denial). */
export function answerOf(record: ApprovalRecord): ApprovalAnswer | undefined {
  if (record.status === 'approved') return { action: 'approve' };
  if (record.status === 'edited') return { action: 'edit', args: record.editedArgs ?? {} };
  if (record.status === 'expired') return { action: 'deny', reason: record.denyReason ?? 'it expired' };
  if (record.status === 'denied') return { action: 'deny', reason: `${record.answeredBy ?? 'someone'} denied it: ${record.denyReason ?? 'no reason given'}` };
  return undefined;
}

async function one(sql: Sql, id: number): Promise<ApprovalRecord | undefined> {
  const [row] = await sql.all<Row>(`SELECT ${COLUMNS} FROM claw_approvals WHERE id = :id`, { id });
  return row ? toRecord(row) : undefined;
}

export interface NewApproval {
  group: string;
  sessionId: string;
  toolCallId: string;
  toolName: string;
  args: Record<string, unknown>;
  reason: string;
  now: number;
  expiresAt: number;
}

/** Stores a pending approval in a transaction of its own (insertApprovalIn). */
export function insertApproval(store: SessionStore, input: NewApproval): Promise<ApprovalRecord> {
  return store.withTransaction((sql) => insertApprovalIn(sql, input));
}

/** Stores a pending approval in `sql`'s transaction; the same call asked again (a resumed wait) gets its existing row. */
export async function insertApprovalIn(sql: Sql, input: NewApproval): Promise<ApprovalRecord> {
    const [existing] = await sql.all<Row>(`SELECT ${COLUMNS} FROM claw_approvals WHERE session_id = :session AND tool_call_id = :call`, { session: input.sessionId, call: input.toolCallId });
    if (existing) return toRecord(existing);
    const [row] = await sql.all<Row>(
      `INSERT INTO claw_approvals (group_name, session_id, tool_call_id, tool_name, args, reason, status, run_state, created_at, expires_at) ` +
        `VALUES (:group, :session, :call, :tool, :args, :reason, 'pending', 'waiting', :now, :expires) RETURNING ${COLUMNS}`,
      { group: input.group, session: input.sessionId, call: input.toolCallId, tool: input.toolName, args: JSON.stringify(input.args), reason: input.reason, now: input.now, expires: input.expiresAt },
    );
    return toRecord(row!);
}

export async function getApproval(store: SessionStore, id: number): Promise<ApprovalRecord> {
  const record = await store.withRead((sql) => one(sql, id));
  if (!record) throw new XdogError(ErrorCodes.NOT_FOUND, `there is no approval ${id}`, { hint: 'list them with `xdog claw approvals list`' });
  return record;
}

/** Approvals of a group (all groups without one), newest first; `pendingOnly` keeps the unanswered. */
export function listApprovals(store: SessionStore, options: { group?: string; pendingOnly?: boolean; limit: number }): Promise<ApprovalRecord[]> {
  const where = [options.group ? 'group_name = :group' : '', options.pendingOnly ? "status = 'pending'" : ''].filter(Boolean);
  return store.withRead(async (sql) =>
    (await sql.all<Row>(`SELECT ${COLUMNS} FROM claw_approvals ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ${Math.floor(options.limit)}`, { group: options.group })).map(toRecord),
  );
}

/** Approvals of a session whose call has not been claimed yet (a restart resumes them). */
export function waitingApprovals(store: SessionStore, sessionId: string): Promise<ApprovalRecord[]> {
  return store.withRead(async (sql) => (await sql.all<Row>(`SELECT ${COLUMNS} FROM claw_approvals WHERE session_id = :session AND run_state = 'waiting' ORDER BY id`, { session: sessionId })).map(toRecord));
}

/**
 * Answers a pending approval. Exactly one answer wins: a second (or one
 * after expiry) is refused with CONFLICT naming what won, who and when.
 */
export async function answerApproval(
  store: SessionStore,
  id: number,
  answer: ApprovalAnswer | { action: 'expire'; reason: string },
  by: string,
  now: number,
  /** "Always allow": rules stored with the answer, in its transaction, only if this answer wins. */
  learned: readonly LearnedRule[] = [],
): Promise<ApprovalRecord> {
  const status: ApprovalStatus = answer.action === 'approve' ? 'approved' : answer.action === 'edit' ? 'edited' : answer.action === 'deny' ? 'denied' : 'expired';
  const text = answer.action === 'edit' ? JSON.stringify(answer.args) : answer.action === 'approve' ? null : answer.reason;
  const won = await store.withTransaction(async (sql) => {
    const changed = await sql.run("UPDATE claw_approvals SET status = :status, answer = :answer, answered_by = :by, answered_at = :now WHERE id = :id AND status = 'pending'", {
      status,
      answer: text,
      by,
      now,
      id,
    });
    const record = await one(sql, id);
    if (changed === 1 && record) for (const rule of learned) await insertLearnedRule(sql, record, rule, by, now);
    return { changed, record };
  });
  if (!won.record) throw new XdogError(ErrorCodes.NOT_FOUND, `there is no approval ${id}`, { hint: 'list them with `xdog claw approvals list`' });
  if (won.changed === 0) {
    const winner = won.record;
    const when = winner.answeredAt === null ? '' : ` at ${new Date(winner.answeredAt).toISOString()}`;
    throw new XdogError(ErrorCodes.CONFLICT, `approval ${id} was already answered: ${winner.status} by ${winner.answeredBy ?? 'nobody'}${when}`, {
      hint: 'nothing changed; `xdog claw approvals show ' + id + '` shows the answer that stands',
    });
  }
  return won.record;
}

/** Claims an answered approval's call for running; false when another run claimed it first (it must not run again). */
export async function claimApproval(sql: Sql, id: number): Promise<boolean> {
  return (await sql.run("UPDATE claw_approvals SET run_state = 'running' WHERE id = :id AND run_state = 'waiting' AND status <> 'pending'", { id })) === 1;
}

/** Claims it in a transaction of its own. */
export function claimApprovalNow(store: SessionStore, id: number): Promise<boolean> {
  return store.withTransaction((sql) => claimApproval(sql, id));
}

/** A learned ("always allow") rule as clients see it. */
export interface LearnedRuleRecord extends LearnedRule {
  id: number;
  group: string;
  /** The approval it was added from. */
  approvalId: number;
  createdBy: string;
  createdAt: number;
}

interface RuleRow {
  id: number | string;
  group_name: string;
  tool_name: string;
  argv: string | null;
  approval_id: number | string;
  created_by: string;
  created_at: number | string;
}

const RULE_COLUMNS = 'id, group_name, tool_name, argv, approval_id, created_by, created_at';

function toRule(row: RuleRow): LearnedRuleRecord {
  return {
    id: Number(row.id),
    group: row.group_name,
    tool: row.tool_name,
    ...(row.argv === null ? {} : { argv: JSON.parse(row.argv) as string[] }),
    approvalId: Number(row.approval_id),
    createdBy: row.created_by,
    createdAt: Number(row.created_at),
  };
}

async function insertLearnedRule(sql: Sql, approval: ApprovalRecord, rule: LearnedRule, by: string, now: number): Promise<void> {
  await sql.run('INSERT INTO claw_approval_rules (group_name, tool_name, argv, approval_id, created_by, created_at) VALUES (:group, :tool, :argv, :approval, :by, :now)', {
    group: approval.group,
    tool: rule.tool,
    argv: rule.argv ? JSON.stringify(rule.argv) : null,
    approval: approval.id,
    by,
    now,
  });
}

/** A group's learned rules, oldest first. */
export function listLearnedRules(store: SessionStore, group: string, limit: number): Promise<LearnedRuleRecord[]> {
  return store.withRead(async (sql) => (await sql.all<RuleRow>(`SELECT ${RULE_COLUMNS} FROM claw_approval_rules WHERE group_name = :group ORDER BY id LIMIT ${Math.floor(limit)}`, { group })).map(toRule));
}

/** Removes a learned rule; NOT_FOUND when there is none by that id. */
export async function forgetLearnedRule(store: SessionStore, id: number): Promise<LearnedRuleRecord> {
  const removed = await store.withTransaction(async (sql) => {
    const [row] = await sql.all<RuleRow>(`SELECT ${RULE_COLUMNS} FROM claw_approval_rules WHERE id = :id`, { id });
    if (row) await sql.run('DELETE FROM claw_approval_rules WHERE id = :id', { id });
    return row;
  });
  if (!removed) throw new XdogError(ErrorCodes.NOT_FOUND, `there is no always-allow rule ${id}`, { hint: 'list them with `xdog claw approvals rules`' });
  return toRule(removed);
}
