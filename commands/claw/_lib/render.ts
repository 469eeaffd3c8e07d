/**
 * Plain-text views of what the gateway answers. Text that came from users or
 * models (names, summaries, messages) is cleaned of control characters first:
 * a terminal never executes an escape sequence it was sent.
 */
import { BIDI_CONTROLS } from '../../../core/terminal-text.js';
import type { CompactionReceipt, GatewayStatus, GroupStatus, WorkersReport } from '../../../plugins/claw-gateway/protocol.js';
import { treeOutline, type SessionTree } from '../../../plugins/sessions/tree-pages.js';
import type { Entry, SessionRecord, UsageTotals } from '../../../plugins/sessions/types.js';
import type { SessionShow } from './results.js';

const UNPRINTABLE = new RegExp(`[\\p{Cc}${BIDI_CONTROLS}]+`, 'gu');

/** One line of display text: control and bidi characters become spaces, cut to `max` characters. */
export function clean(text: string, max = 80): string {
  const line = text.replace(UNPRINTABLE, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** Columns padded to their widest cell; the last column is not padded. */
export function table(header: string[], rows: string[][]): string {
  const all = [header, ...rows];
  const widths = header.map((_, column) => Math.max(...all.map((row) => (row[column] ?? '').length)));
  return all.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  ').trimEnd()).join('\n');
}

function time(ms: number | null | undefined): string {
  return ms ? new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z') : '-';
}

export function renderGroups(groups: GroupStatus[]): string {
  if (groups.length === 0) return 'no groups (add one with xdog claw onboard)';
  return table(
    ['GROUP', 'STATE', 'QUEUED', 'MODEL', 'ACTIVE SESSION', 'WORKSPACE'],
    groups.map((group) => [
      group.name,
      group.busy ? `busy since ${time(group.runStartedAt)}` : 'idle',
      String(group.queued),
      group.model,
      group.activeSessionId ?? '-',
      group.workspace,
    ]),
  );
}

export function renderGatewayStatus(status: GatewayStatus): string {
  return [
    `gateway: running (pid ${status.pid}, xdog ${status.version}, protocol ${status.protocol}, since ${time(status.startedAt)})`,
    `socket: ${status.socket}`,
    `store: ${status.store}`,
    '',
    renderGroups(status.groups),
  ].join('\n');
}

function sessionTitle(session: SessionRecord): string {
  return clean(session.name ?? session.summary ?? '(empty)', 60);
}

/** What a listing asked for: an empty answer says which filter left nothing. */
export interface SessionsFilter {
  search?: string;
  archived?: boolean;
}

function noSessions(filter: SessionsFilter): string {
  const archived = filter.archived ? '' : '; --archived also lists archived sessions';
  if (filter.search !== undefined) return `no sessions match "${clean(filter.search, 60)}" (names and summaries are searched${archived})`;
  return `no sessions yet (xdog claw send TEXT starts one${archived})`;
}

export function renderSessions(sessions: SessionRecord[], activeSessionId: string | null, filter: SessionsFilter = {}): string {
  if (sessions.length === 0) return noSessions(filter);
  return table(
    ['', 'SESSION', 'MESSAGES', 'UPDATED', 'TITLE'],
    sessions.map((session) => [
      session.id === activeSessionId ? '*' : session.archived ? 'a' : '',
      session.id,
      String(session.messageCount),
      time(session.updatedAt),
      sessionTitle(session),
    ]),
  );
}

export function renderSessionShow(show: SessionShow, activeSessionId: string | null): string {
  const { session, state } = show;
  const lines = [
    `session: ${session.id}${session.id === activeSessionId ? ' (active)' : ''}${session.archived ? ' (archived)' : ''}`,
    `group: ${session.group}`,
    `name: ${session.name === null ? '-' : clean(session.name, 256)}`,
    `summary: ${session.summary === null ? '-' : clean(session.summary, 200)}`,
    `model: ${state.model}${state.thinking ? ` (thinking ${state.thinking})` : ''}`,
    ...(session.parentSessionId ? [`forked from: ${session.parentSessionId} at entry ${session.forkEntryId}`] : []),
    `created: ${time(session.createdAt)}  updated: ${time(session.updatedAt)}`,
    '',
  ];
  if (show.checkpoints.length === 0) return [...lines, 'no messages yet'].join('\n');
  const rows = show.checkpoints.map((checkpoint) => [
    String(checkpoint.index),
    checkpoint.valid ? 'yes' : 'no',
    String(checkpoint.entryId),
    checkpoint.role,
    clean(checkpoint.preview, 70),
  ]);
  return [...lines, 'checkpoints (fork INDEX / goto INDEX; "no" would split a tool call from its result):', table(['#', 'VALID', 'ENTRY', 'ROLE', 'MESSAGE'], rows)].join('\n');
}

/** A one-line description of an entry. */
export function describeEntry(entry: Entry): string {
  switch (entry.kind) {
    case 'message': {
      const message = entry.payload.message;
      const content = typeof message.content === 'string' ? message.content : message.content.map((part) => ('text' in part ? part.text : `[${part.type}]`)).join(' ');
      return `${message.role}: ${clean(content, 70)}`;
    }
    case 'compaction':
      return `compaction: ${clean(entry.payload.summary, 60)}`;
    case 'branch_summary':
      return `branch summary (from ${entry.payload.fromEntryId}): ${clean(entry.payload.summary, 50)}`;
    case 'model_change':
      return `model → ${entry.payload.model}`;
    case 'thinking_change':
      return `thinking → ${entry.payload.thinking ?? 'off'}`;
    case 'label':
      return `label ${entry.payload.targetEntryId}: ${entry.payload.label === null ? '(cleared)' : clean(entry.payload.label, 40)}`;
    case 'custom':
      return `custom: ${clean(entry.payload.type, 40)}`;
  }
}

/** The entry tree, one entry per line; `*` marks the path to the leaf, `<- leaf` the leaf (the path's last entry). */
export function renderTree(tree: SessionTree): string {
  if (tree.entries.length === 0) return 'the session has no entries yet';
  return treeOutline(tree.entries)
    .map(({ entry, depth }) => `${'  '.repeat(depth)}${entry.onPath ? '*' : ' '} ${entry.id} ${describeEntry(entry)}${entry.id === tree.leafEntryId ? '  <- leaf' : ''}`)
    .join('\n');
}

export function renderUsage(totals: UsageTotals[]): string {
  if (totals.length === 0) return 'no model calls recorded';
  const sum = (pick: (row: UsageTotals) => number): number => totals.reduce((total, row) => total + pick(row), 0);
  const costs = totals.filter((row) => row.cost !== null);
  const money = (cost: number | null): string => (cost === null ? 'unknown' : `$${cost.toFixed(6)}`);
  // A row with some calls of unknown price says so: its cost sums only the priced ones.
  const costCell = (row: UsageTotals): string => `${money(row.cost)}${row.cost !== null && row.unpricedCalls > 0 ? ` (+${row.unpricedCalls} unpriced)` : ''}`;
  const rows = totals.map((row) => [row.key ?? '-', String(row.calls), String(row.input), String(row.output), String(row.cacheRead), String(row.cacheWrite), costCell(row), `${(row.durationMs / 1000).toFixed(1)}s`]);
  const unpriced = sum((row) => row.unpricedCalls);
  rows.push([
    'total',
    String(sum((row) => row.calls)),
    String(sum((row) => row.input)),
    String(sum((row) => row.output)),
    String(sum((row) => row.cacheRead)),
    String(sum((row) => row.cacheWrite)),
    costs.length === 0 ? 'unknown' : `${money(costs.reduce((total, row) => total + row.cost!, 0))}${unpriced > 0 ? ` (known prices only; ${unpriced} unpriced)` : ''}`,
    `${(sum((row) => row.durationMs) / 1000).toFixed(1)}s`,
  ]);
  return table([(totals[0]!.by).toUpperCase(), 'CALLS', 'INPUT', 'OUTPUT', 'CACHE READ', 'CACHE WRITE', 'COST', 'TIME'], rows);
}

/** What a navigation leaves: the group's active session and where its leaf is. */
export function renderNavigation(what: string, session: SessionRecord): string {
  const title = session.name ? ` "${clean(session.name, 60)}"` : '';
  return `${what}: group ${session.group} now has active session ${session.id}${title} (${session.messageCount} messages on its path)`;
}

/** A compaction receipt: what was written and how to get the full history back. */
export function renderCompaction(receipt: CompactionReceipt): string {
  if (receipt.status === 'skipped') return `nothing compacted: ${receipt.message}`;
  return [
    `compacted session ${receipt.sessionId}: ${receipt.messagesBefore} → ${receipt.messagesAfter} messages, about ${receipt.tokensBefore} → ${receipt.tokensAfter} tokens`,
    `recovery branch: entry ${receipt.recoveryBranchId} "${receipt.recoveryLabel}" (xdog claw sessions branch ${receipt.recoveryBranchId} restores the full history)`,
    `summary: ${clean(receipt.summary, 70)}`,
  ].join('\n');
}

/** The worker pool: one row per worker and group it holds, then the groups nobody holds. */
export function renderWorkers(report: WorkersReport, now: number): string {
  if (report.workers.length === 0 && report.unowned.length === 0) return 'no workers and no configured groups';
  const rows: string[][] = [];
  for (const worker of report.workers) {
    const state = worker.alive ? 'alive' : 'stale';
    const beat = worker.heartbeatAt === null ? '-' : `${Math.max(0, Math.round((now - worker.heartbeatAt) / 1000))}s ago`;
    const name = `${clean(worker.name, 40)}${worker.id === report.self ? ' (this)' : ''}`;
    const groups = worker.groups.length ? worker.groups : [undefined];
    for (const group of groups) {
      rows.push([name, String(worker.pid), clean(worker.host, 40), state, beat, group ? clean(group.group, 64) : '-', group ? time(group.expiresAt) : '-']);
    }
  }
  const lines = [rows.length ? table(['WORKER', 'PID', 'HOST', 'STATE', 'HEARTBEAT', 'GROUP', 'LEASE UNTIL'], rows) : 'no worker is registered and no lease is held'];
  if (report.unowned.length) lines.push(`unowned groups: ${report.unowned.map((group) => clean(group, 64)).join(', ')}`);
  lines.push(`leases last ${report.leaseSeconds} s (claw.lease_seconds)`);
  return lines.join('\n');
}
