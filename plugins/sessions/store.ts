/**
 * TypeormSessionStore: the SessionStore contract on a typeorm DataSource.
 * Every method is one serialized operation; every method that changes more
 * than one row is one transaction. The modules beside it each hold one job
 * (catalog, tree, context, checkpoints, names, state, ledger, leases).
 */
import type { DataSource } from 'typeorm';
import { ErrorCodes, LIMITS, XdogError, utf8Bytes, type Clock, type Message } from '../../core/index.js';
import * as access from './access.js';
import * as catalog from './catalog.js';
import { checkpointsOf } from './checkpoints.js';
import { ContextCache } from './context-cache.js';
import { contextMessages, pathMessages } from './context.js';
import * as leases from './leases.js';
import * as ledger from './ledger.js';
import { checkSessionName, checkSummary } from './names.js';
import { toEntry } from './rows.js';
import { StoreDatabase, type Sql, type TransactionOptions } from './sql.js';
import { applyPatch, checkStatePatch, readState, writeState } from './state.js';
import * as tree from './tree.js';
import type {
  AccessMode,
  AppendOptions,
  AccessScopeRecord,
  Checkpoint,
  CompactionInput,
  CompactionWritten,
  Entry,
  EntryInput,
  EntryPayloads,
  Expectation,
  GroupRecord,
  LeaseOwner,
  LeaseRecord,
  NewSessionOptions,
  SessionContext,
  SessionRecord,
  SessionState,
  SessionStore,
  TreePage,
  UsageFilter,
  UsageInput,
  UsageTotals,
} from './types.js';

export interface SessionStoreOptions {
  /** Time source for created/updated times (tests pass a fake). */
  clock?: Clock;
}

export class TypeormSessionStore implements SessionStore {
  private readonly db: StoreDatabase;
  private readonly clock: Clock;
  private closed = false;
  /** Contexts of recently used sessions, checked against the stored leaf on every read. */
  private readonly contexts = new ContextCache();
  /**
   * The leaf of each recently used session as this store last read or wrote it: an append under
   * it reads no session row (its leaf move is a compare-and-swap on it, so an old one costs a retry,
   * never a wrong parent).
   */
  private readonly leaves = new Map<string, number | null>();

  constructor(dataSource: DataSource, options: SessionStoreOptions = {}) {
    if (!dataSource.isInitialized) throw new XdogError(ErrorCodes.INVALID_STATE, 'the session store needs an initialized DataSource (see openClawDataSource)');
    this.db = new StoreDatabase(dataSource);
    this.clock = options.clock ?? { now: () => Date.now() };
  }

  private now(): number {
    return this.clock.now();
  }

  private open(): void {
    if (this.closed) throw new XdogError(ErrorCodes.CLOSED, 'the session store is closed');
  }

  private async read<T>(work: (sql: Sql) => Promise<T>): Promise<T> {
    this.open();
    return this.db.read(work);
  }

  private async write<T>(work: (sql: Sql) => Promise<T>, options?: TransactionOptions): Promise<T> {
    this.open();
    return this.db.transaction(work, options);
  }

  // groups

  async ensureGroup(group: string): Promise<GroupRecord> {
    return this.write((sql) => catalog.ensureGroup(sql, group, this.now()));
  }

  async getGroup(group: string): Promise<GroupRecord> {
    return this.read((sql) => catalog.requireGroup(sql, group));
  }

  async listGroups(): Promise<GroupRecord[]> {
    return this.read((sql) => catalog.listGroups(sql));
  }

  // catalog

  async createSession(group: string, options: NewSessionOptions, expectation?: Expectation): Promise<SessionRecord> {
    const { name, ...state } = catalog.checkNewSessionOptions(options);
    if (options.activate && !expectation) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'activating the new session needs the expected active-session id');
    return this.write(async (sql) => {
      const found = await catalog.requireGroup(sql, group);
      if (options.activate) catalog.checkExpectation(found, expectation);
      const now = this.now();
      const id = await catalog.insertSession(sql, { group, name, summary: null, parentSessionId: null, forkEntryId: null, state, now });
      if (options.activate) await catalog.setActive(sql, found, id);
      return catalog.requireSession(sql, id);
    });
  }

  async getSession(sessionId: string): Promise<SessionRecord> {
    return this.read((sql) => catalog.requireSession(sql, sessionId));
  }

  async listSessions(group: string, options?: catalog.PageOptions): Promise<SessionRecord[]> {
    return this.read(async (sql) => {
      await catalog.requireGroup(sql, group);
      return catalog.listSessions(sql, group, options);
    });
  }

  async searchSessions(group: string, query: string, options?: { includeArchived?: boolean; limit?: number }): Promise<SessionRecord[]> {
    return this.read(async (sql) => {
      await catalog.requireGroup(sql, group);
      return catalog.searchSessions(sql, group, query, options);
    });
  }

  async setName(sessionId: string, name: string | null): Promise<SessionRecord> {
    const checked = checkSessionName(name);
    return this.write(async (sql) => {
      await catalog.requireSession(sql, sessionId);
      await catalog.setName(sql, sessionId, checked, this.now());
      return catalog.requireSession(sql, sessionId);
    });
  }

  async setSummary(sessionId: string, summary: string | null): Promise<void> {
    const checked = checkSummary(summary);
    return this.write(async (sql) => {
      await catalog.requireSession(sql, sessionId);
      await catalog.setSummary(sql, sessionId, checked);
    });
  }

  async archive(sessionId: string): Promise<SessionRecord> {
    return this.write(async (sql) => {
      const session = await catalog.requireSession(sql, sessionId);
      const group = await catalog.requireGroup(sql, session.group);
      await catalog.setArchived(sql, sessionId, true, this.now());
      if (group.activeSessionId === sessionId) await catalog.setActive(sql, group, null);
      return catalog.requireSession(sql, sessionId);
    });
  }

  async activate(group: string, sessionId: string, expectation: Expectation): Promise<GroupRecord> {
    return this.write(async (sql) => {
      const found = await catalog.requireGroup(sql, group);
      const session = await catalog.requireSession(sql, sessionId);
      if (session.group !== group) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `session ${sessionId} belongs to group "${session.group}", not "${group}"`);
      catalog.checkExpectation(found, expectation);
      if (session.archived) await catalog.setArchived(sql, sessionId, false, this.now());
      return catalog.setActive(sql, found, sessionId);
    });
  }

  // tree

  async append(sessionId: string, entries: readonly EntryInput[], options: AppendOptions = {}): Promise<Entry[]> {
    const inputKey = options.inputKey ? { group: options.inputKey.group, key: ledger.checkInputKey(options.inputKey.key) } : undefined;
    const remembered = this.leaves.get(sessionId);
    const written = await this.write(async (sql) => {
      // Remembered: the leaf move checks it (no read first). Otherwise the row is read and locked: appends to one session queue behind each other.
      const session = remembered !== undefined ? { id: sessionId, leafEntryId: remembered } : await catalog.requireSession(sql, sessionId, true);
      if (inputKey && !(await ledger.insertInputKey(sql, inputKey.group, inputKey.key, sessionId, this.now()))) throw duplicateInput(inputKey);
      if (options.usage) await ledger.insertUsage(sql, options.usage);
      await options.within?.(sql);
      return tree.appendEntries(sql, session, entries, this.now(), remembered !== undefined);
    // The session row is all an append reads that others change, and usage and key rows are only ever
    // added: alone, it needs no serializable check (the hot path of every turn, on every worker).
    }, { rowLocks: !options.within });
    const from = written[0]!.parentId;
    this.rememberLeaf(sessionId, written.at(-1)!.id);
    // Committed: a cached context at the old leaf takes the new messages (anything else makes the next read rebuild it).
    if (written.every((entry) => entry.kind === 'message')) {
      this.contexts.extend(sessionId, from, written.at(-1)!.id, written.map((entry) => {
        const json = JSON.stringify((entry.payload as EntryPayloads['message']).message);
        return { id: entry.id, message: JSON.parse(json) as Message, bytes: json.length };
      }));
    } else {
      this.contexts.drop(sessionId);
    }
    return written;
  }

  /** Remembers the leaf a session's row had when this store last read or wrote it (bounded; the oldest goes first). */
  private rememberLeaf(sessionId: string, leafEntryId: number | null): void {
    this.leaves.delete(sessionId);
    this.leaves.set(sessionId, leafEntryId);
    if (this.leaves.size > LIMITS.clawContextCacheSessions) this.leaves.delete(this.leaves.keys().next().value!);
  }

  async context(sessionId: string): Promise<SessionContext> {
    return this.read(async (sql) => {
      const session = await catalog.requireSession(sql, sessionId);
      this.rememberLeaf(sessionId, session.leafEntryId);
      const state = await readState(sql, sessionId);
      const cached = this.contexts.get(sessionId, session.leafEntryId);
      if (cached) return { session, state, ...cached };
      const { rows, compactions } = await tree.contextRows(sql, sessionId, session.leafEntryId);
      const bytes = rows.reduce((sum, row) => sum + row.payload.length, 0);
      return { session, state, ...this.contexts.set(sessionId, session.leafEntryId, contextMessages(rows, compactions), bytes) };
    });
  }

  async path(sessionId: string): Promise<Entry[]> {
    return this.read(async (sql) => {
      const session = await catalog.requireSession(sql, sessionId);
      return (await tree.pathRows(sql, sessionId, session.leafEntryId)).map(toEntry);
    });
  }

  async tree(sessionId: string, page: { cursor?: number; limit?: number } = {}): Promise<TreePage> {
    const limit = catalog.pageLimit(page.limit, LIMITS.clawTreeEntriesPerPage, 'tree entries', 'page with cursor');
    return this.read(async (sql) => tree.treePage(sql, await catalog.requireSession(sql, sessionId), page.cursor ?? 0, limit));
  }

  async checkpoints(sessionId: string): Promise<Checkpoint[]> {
    return this.read(async (sql) => {
      const session = await catalog.requireSession(sql, sessionId);
      return checkpointsOf(pathMessages(await tree.pathRows(sql, sessionId, session.leafEntryId)));
    });
  }

  async fork(sessionId: string, index: number, expectation?: Expectation): Promise<SessionRecord> {
    return this.write(async (sql) => {
      const source = await catalog.requireSession(sql, sessionId);
      const group = await catalog.requireGroup(sql, source.group);
      if (expectation) catalog.checkExpectation(group, expectation);
      const now = this.now();
      const state = await readState(sql, sessionId);
      const id = await catalog.insertSession(sql, { group: source.group, name: null, summary: source.summary, parentSessionId: source.id, forkEntryId: null, state, now });
      const { forkEntryId } = await tree.copyPathPrefix(sql, source, index, id, now);
      await sql.run('UPDATE claw_sessions SET fork_entry_id = :fork WHERE id = :id', { fork: forkEntryId, id });
      if (expectation) await catalog.setActive(sql, group, id);
      return catalog.requireSession(sql, id);
    });
  }

  async goto(sessionId: string, index: number): Promise<SessionRecord> {
    this.leaves.delete(sessionId);
    return this.write(async (sql) => {
      const session = await catalog.requireSession(sql, sessionId);
      const target = await tree.gotoTarget(sql, session, index);
      await tree.moveLeaf(sql, sessionId, target.entryId, target.messageCount, this.now());
      return catalog.requireSession(sql, sessionId);
    });
  }

  async branch(sessionId: string, entryId: number): Promise<SessionRecord> {
    this.leaves.delete(sessionId);
    return this.write(async (sql) => {
      const session = await catalog.requireSession(sql, sessionId);
      const target = await tree.branchTarget(sql, session, entryId);
      await tree.moveLeaf(sql, sessionId, target.entryId, target.messageCount, this.now());
      return catalog.requireSession(sql, sessionId);
    });
  }

  async compact(sessionId: string, input: CompactionInput): Promise<CompactionWritten> {
    checkCompaction(input);
    this.leaves.delete(sessionId);
    return this.write(async (sql) => tree.writeCompaction(sql, await catalog.requireSession(sql, sessionId), input, this.now()));
  }

  async closeInterruptedToolCalls(sessionId: string): Promise<Entry[]> {
    this.leaves.delete(sessionId);
    return this.write(async (sql) => {
      const session = await catalog.requireSession(sql, sessionId);
      const now = this.now();
      const results = tree.interruptedResults(await tree.pathRows(sql, sessionId, session.leafEntryId), now);
      // Calls waiting for an approval (plugins/approvals) are not interrupted: their run resumes once answered.
      const waiting = await sql.all<{ tool_call_id: string }>("SELECT tool_call_id FROM claw_approvals WHERE session_id = :id AND run_state = 'waiting'", { id: sessionId });
      if (waiting.length && results.some((entry) => waiting.some((row) => row.tool_call_id === (entry.payload as { message: { toolCallId: string } }).message.toolCallId))) return [];
      return results.length ? tree.appendEntries(sql, session, results, now) : [];
    });
  }

  // access scope

  async getAccessScope(group: string): Promise<AccessScopeRecord> {
    return this.read(async (sql) => {
      await catalog.requireGroup(sql, group);
      return access.readAccessScope(sql, group);
    });
  }

  async setAccessScope(group: string, mode: AccessMode, expectedRevision?: number): Promise<AccessScopeRecord> {
    return this.write(async (sql) => {
      await catalog.requireGroup(sql, group);
      return access.writeAccessScope(sql, group, mode, expectedRevision, this.now());
    });
  }

  // state

  async getState(sessionId: string): Promise<SessionState> {
    return this.read(async (sql) => {
      await catalog.requireSession(sql, sessionId);
      return readState(sql, sessionId);
    });
  }

  async updateState(sessionId: string, patch: Partial<SessionState>): Promise<SessionState> {
    this.leaves.delete(sessionId);
    const checked = checkStatePatch(patch);
    return this.write(async (sql) => {
      const session = await catalog.requireSession(sql, sessionId);
      const { state, entries } = applyPatch(await readState(sql, sessionId), checked);
      await writeState(sql, sessionId, state);
      if (entries.length) await tree.appendEntries(sql, session, entries, this.now());
      else await catalog.touch(sql, sessionId, this.now());
      return state;
    });
  }

  // usage ledger

  async recordUsage(row: UsageInput): Promise<void> {
    const checked = ledger.checkUsage(row);
    return this.write(async (sql) => {
      await catalog.requireGroup(sql, checked.group);
      if (checked.sessionId !== null) await catalog.requireSession(sql, checked.sessionId);
      await ledger.insertUsage(sql, checked);
    });
  }

  async usageSummary(filter?: UsageFilter): Promise<UsageTotals[]> {
    return this.read((sql) => ledger.usageTotals(sql, filter));
  }

  // idempotency

  async recordInputKey(group: string, key: string, sessionId: string): Promise<boolean> {
    const checked = ledger.checkInputKey(key);
    return this.write(async (sql) => {
      await catalog.requireGroup(sql, group);
      await catalog.requireSession(sql, sessionId);
      return ledger.insertInputKey(sql, group, checked, sessionId, this.now());
    });
  }

  /** True when an input with this key was admitted to the group before (a channel asks before it accepts a message again). */
  async hasInputKey(group: string, key: string): Promise<boolean> {
    const checked = ledger.checkInputKey(key);
    return this.read((sql) => ledger.inputKeyExists(sql, group, checked));
  }

  // leases

  async acquireLease(group: string, owner: LeaseOwner, now: number, leaseMs?: number): Promise<LeaseRecord> {
    const checked = leases.checkLeaseOwner(owner);
    return this.write(async (sql) => {
      await catalog.requireGroup(sql, group);
      return leases.acquire(sql, group, checked, now, leaseMs);
    });
  }

  async renewLeases(ownerId: string, now: number, leaseMs: number): Promise<string[]> {
    // One UPDATE: atomic without a transaction around it.
    return this.read((sql) => leases.renewAll(sql, ownerId, now, leaseMs));
  }

  async releaseLease(group: string, ownerId: string): Promise<boolean> {
    return this.write((sql) => leases.releaseOne(sql, group, ownerId));
  }

  async listLeases(): Promise<LeaseRecord[]> {
    return this.read((sql) => leases.listAll(sql));
  }

  async releaseLeases(ownerId: string): Promise<void> {
    return this.write((sql) => leases.release(sql, ownerId));
  }

  async getLease(group: string): Promise<LeaseRecord | undefined> {
    return this.read((sql) => leases.findLease(sql, group));
  }

  /** Waits for running operations, then refuses new ones. The DataSource stays open (its owner closes it). */
  async withTransaction<T>(work: (sql: Sql) => Promise<T>, options?: TransactionOptions): Promise<T> {
    return this.write(work, options);
  }

  async withRead<T>(work: (sql: Sql) => Promise<T>): Promise<T> {
    return this.read(work);
  }

  async withStatement<T>(work: (sql: Sql) => Promise<T>): Promise<T> {
    // The read path is the one without a transaction around it (serialized with the store's other work on SQLite).
    return this.read(work);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.db.idle();
    this.contexts.clear();
    this.leaves.clear();
  }
}

/** The refusal of an input whose idempotency key the group already recorded (it ran, or runs, elsewhere). */
function duplicateInput({ group, key }: { group: string; key: string }): XdogError {
  return new XdogError(ErrorCodes.CONFLICT, `an input with idempotency key ${JSON.stringify(key)} was already admitted to group ${group}; this copy was not stored or run`, {
    hint: 'nothing to do: the first copy is the one that runs (send a new key to run it again)',
  });
}

/** A compaction's summary and details within their limits (the store never clips them). */
function checkCompaction(input: CompactionInput): void {
  const bytes = utf8Bytes(input.summary ?? '');
  if (!input.summary?.trim()) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'a compaction needs a non-empty summary');
  if (bytes > LIMITS.compactionSummaryBytes) throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `the compaction summary is ${bytes} bytes, over the limit of ${LIMITS.compactionSummaryBytes}`);
  const details = input.details === undefined ? 0 : Buffer.byteLength(JSON.stringify(input.details) ?? '');
  if (details > LIMITS.compactionDetailsBytes) throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `the compaction details are ${details} bytes of JSON, over the limit of ${LIMITS.compactionDetailsBytes}`);
}

/** A session store on an initialized DataSource (see openClawDataSource). */
export function openSessionStore(dataSource: DataSource, options?: SessionStoreOptions): SessionStore {
  return new TypeormSessionStore(dataSource, options);
}
