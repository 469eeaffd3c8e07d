/**
 * The contract of the claw session store: groups, a catalog of sessions per
 * group, each session a tree of entries with a movable leaf, per-session state,
 * a usage ledger, recorded idempotency keys and group leases. Every method that
 * changes more than one row runs in one database transaction: after a crash
 * the store holds the old state or the new state, never a mix.
 *
 * Ids: sessions are UUID strings; entries are positive integers, unique in the
 * store (so `branch 57` names one entry). Times are epoch milliseconds.
 */
import type { Message, Usage } from '../../core/index.js';
import type { Sql, TransactionOptions } from './sql.js';

export type { Params, Sql } from './sql.js';

/** The kinds of tree entries. Only `message`, `compaction` and `branch_summary` reach the model context. */
export type EntryKind = 'message' | 'compaction' | 'branch_summary' | 'model_change' | 'thinking_change' | 'label' | 'custom';

/** What each entry kind carries (stored as JSON). Images stay inside the message content. */
/** Where a system input came from: `origin` is the service ("schedule"), `id` and `name` the thing that sent it. */
export interface SystemInputSource {
  kind: 'system';
  origin: string;
  id: string;
  name?: string;
}

export interface EntryPayloads {
  /** `source` labels an input that came from the host itself (a scheduled job), not from a person. */
  message: { message: Message; source?: SystemInputSource };
  /** The context before `firstKeptEntryId` (an entry on the same path) is replaced by `summary`. */
  compaction: { summary: string; firstKeptEntryId: number | null; tokensBefore?: number; tokensAfter?: number; details?: unknown; recoveryEntryId?: number };
  /** A summary of the branch left at `fromEntryId`, carried into the new branch's context. */
  branch_summary: { fromEntryId: number; summary: string };
  model_change: { model: string };
  thinking_change: { thinking: string | null };
  label: { targetEntryId: number; label: string | null };
  custom: { type: string; data: unknown };
}

export type EntryInput = { [K in EntryKind]: { kind: K; payload: EntryPayloads[K] } }[EntryKind];

export type Entry = EntryInput & {
  id: number;
  sessionId: string;
  parentId: number | null;
  createdAt: number;
};

/** A group's access: everything its tools allow, or the read-only allowlist. */
export type AccessMode = 'full' | 'read-only';

/** A group's access scope as stored; revision 0 (changedAt null) means it was never changed. */
export interface AccessScopeRecord {
  group: string;
  mode: AccessMode;
  /** Bumped by every change (fencing for clients). */
  revision: number;
  changedAt: number | null;
}

export interface GroupRecord {
  name: string;
  /** The session new prompts go to; null until the first one is created. */
  activeSessionId: string | null;
  /** Bumped by every change of the active session (fencing for clients). */
  revision: number;
}

export interface SessionRecord {
  id: string;
  group: string;
  name: string | null;
  /** An automatic title (the first user text, cut to LIMITS.clawSessionSummaryChars). */
  summary: string | null;
  parentSessionId: string | null;
  /** The entry of the parent session this one was forked at. */
  forkEntryId: number | null;
  leafEntryId: number | null;
  archived: boolean;
  /** Messages on the current path (root to leaf). */
  messageCount: number;
  createdAt: number;
  updatedAt: number;
}

/** Per-session state, saved beside the tree. */
export interface SessionState {
  model: string;
  thinking: string | null;
  /** Skill slugs selected for the session. */
  skills: string[];
  /** The plan-mode state (opaque JSON; owned by the plan feature). */
  plan: unknown | null;
  /** Extension entries by extension id (opaque JSON; owned by extensions). */
  extensionEntries: Record<string, unknown>;
}

/** The model context built from the leaf: what the next request carries. */
export interface SessionContext {
  session: SessionRecord;
  state: SessionState;
  /** Messages root → leaf, with the latest compaction applied (its summary as the first user message). */
  messages: Message[];
  /** The entry id behind each message of `messages` (null for a synthesized summary message). */
  entryIds: (number | null)[];
  /** The latest compaction on the path (its summary is `messages[0]`) and how many the path holds; null when none. */
  compaction: { summary: string; details?: unknown; count: number } | null;
}

/** What `compact()` writes: the summary and where the kept part of the path starts. */
export interface CompactionInput {
  summary: string;
  /** The first entry kept verbatim (a message on the current path). */
  firstKeptEntryId: number;
  tokensBefore: number;
  tokensAfter: number;
  details?: unknown;
  /** The leaf the caller compacted; a different current leaf is refused (STALE). */
  expectedLeafEntryId: number | null;
}

/** What `compact()` wrote. */
export interface CompactionWritten {
  compaction: Entry;
  /** The label entry "Before compaction #N": `branch` to it restores the complete original path. */
  recovery: Entry;
  /** N: this session's compaction count, this one included. */
  number: number;
}

/** One message on the current path, numbered as checkpoints are (1-based). */
export interface Checkpoint {
  index: number;
  entryId: number;
  role: Message['role'];
  /** False when cutting here would split a tool call from its result. */
  valid: boolean;
  /** A one-line preview of the message (control characters removed). */
  preview: string;
}

/** An entry of a `tree()` page: the entry (its parentId links the tree) and whether it is on the path to the leaf. */
export type TreeEntry = Entry & { onPath: boolean };

/** One page of a session's tree, flat: entries in id order, a parent before its children. */
export interface TreePage {
  sessionId: string;
  /** The leaf when the page was read (its path is what `onPath` marks). */
  leafEntryId: number | null;
  entries: TreeEntry[];
  /** The `cursor` of the next page; null when this page is the last. */
  nextCursor: number | null;
}

export interface UsageInput {
  group: string;
  sessionId: string | null;
  model: string;
  usage: Usage;
  /** In US dollars, when the catalog knows prices. */
  cost: number | null;
  durationMs: number;
  at: number;
  /** Where the call came from (a prompt, a schedule job, a goal, a child); absent for none known. */
  origin?: UsageOrigin;
}

/** What caused a model call: `kind` is prompt, schedule, goal, child (or another system input's origin), `id` its job, goal or child id. */
export interface UsageOrigin {
  kind: string;
  id: string | null;
}

/** What `usageSummary` sums by: `mcp` is the MCP server whose sampling made the call, `origin` the kind of cause. */
export const USAGE_DIMENSIONS = ['model', 'group', 'session', 'goal', 'child', 'schedule', 'mcp', 'origin'] as const;
export type UsageDimension = (typeof USAGE_DIMENSIONS)[number];

export interface UsageTotals {
  /** The dimension of `key`. */
  by: UsageDimension;
  /** The model, group, session, goal, child, schedule job id, MCP server id or origin kind the row sums. */
  key: string | null;
  /** The model (rows by model only). */
  model?: string;
  calls: number;
  /** Calls whose cost is unknown (no price): `cost` sums only the others. */
  unpricedCalls: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** Null when no call of this model had a known cost. */
  cost: number | null;
  durationMs: number;
}

export interface UsageFilter {
  group?: string;
  sessionId?: string;
  since?: number;
  /** Default: model. goal, child, schedule and mcp sum only the calls of that origin. */
  by?: UsageDimension;
}

/** Who holds a group (the gateway process that serves it). */
export interface LeaseOwner {
  ownerId: string;
  pid: number;
  host: string;
  /** Free text shown when another owner is refused (e.g. the socket path). */
  info: string;
}

export interface LeaseRecord extends LeaseOwner {
  group: string;
  expiresAt: number;
}

/** Fencing for controls that change a group's active session. */
export interface Expectation {
  /** The active-session id the client saw; a different current one is refused with STALE. */
  expectedActiveSessionId: string | null;
}

export interface NewSessionOptions {
  model: string;
  thinking?: string | null;
  skills?: string[];
  name?: string | null;
  /** Make it the group's active session (needs `expectation`). */
  activate?: boolean;
}

/**
 * The session store. Errors: NOT_FOUND (unknown group/session/entry),
 * STALE (expectation not met), INVALID_ARGUMENT (bad name, checkpoint
 * splitting a tool call, entry of another session), LIMIT_EXCEEDED (a name,
 * summary, search query, idempotency key or page over its LIMITS entry),
 * BUSY (another process holds the store's write lock), STORE_CORRUPT.
 * Every method reports errors by rejecting its promise.
 */
export interface AppendOptions {
  /** A ledger row (checked with `checkUsage`) committed with the entries. */
  usage?: UsageInput;
  /**
   * Writes that must commit with the entries, or not at all; they run first. They run
   * SERIALIZABLE on PostgreSQL (an append without them only locks its session's row).
   */
  within?: (sql: Sql) => Promise<void>;
  /**
   * The idempotency key of the input the entries carry, recorded in the same commit: the input is
   * stored and its key known, or neither. A key the group already has refuses the append (CONFLICT).
   */
  inputKey?: { group: string; key: string };
}

export interface SessionStore {
  // groups
  /** Creates the group row if missing; returns it. */
  ensureGroup(group: string): Promise<GroupRecord>;
  getGroup(group: string): Promise<GroupRecord>;
  listGroups(): Promise<GroupRecord[]>;

  // access scope
  /** The group's access scope; STORE_CORRUPT when the stored row cannot be decoded (callers deny). */
  getAccessScope(group: string): Promise<AccessScopeRecord>;
  /** Sets it, fenced by `expectedRevision` (STALE); a corrupt row can only be replaced by 'read-only'. */
  setAccessScope(group: string, mode: AccessMode, expectedRevision?: number): Promise<AccessScopeRecord>;

  // catalog
  createSession(group: string, options: NewSessionOptions, expectation?: Expectation): Promise<SessionRecord>;
  getSession(sessionId: string): Promise<SessionRecord>;
  /** Newest first by updatedAt; archived ones only when asked. */
  listSessions(group: string, options?: { includeArchived?: boolean; limit?: number; offset?: number }): Promise<SessionRecord[]>;
  /** Case-insensitive literal match; sessions whose name matches come before those whose summary matches. */
  searchSessions(group: string, query: string, options?: { includeArchived?: boolean; limit?: number }): Promise<SessionRecord[]>;
  /** Sets (or with null clears) the name: ≤ LIMITS.clawSessionNameBytes (else LIMIT_EXCEEDED), no control or bidi characters. */
  setName(sessionId: string, name: string | null): Promise<SessionRecord>;
  setSummary(sessionId: string, summary: string | null): Promise<void>;
  /** Archives a session; if it was active the group has no active session afterwards. */
  archive(sessionId: string): Promise<SessionRecord>;
  /** Makes an existing session (of that group) active; un-archives it. */
  activate(group: string, sessionId: string, expectation: Expectation): Promise<GroupRecord>;

  // tree
  /** Appends entries in order under the leaf (one transaction) and moves the leaf to the last one. */
  /** Appends under the leaf, with what `options` adds in the same commit. */
  append(sessionId: string, entries: readonly EntryInput[], options?: AppendOptions): Promise<Entry[]>;
  context(sessionId: string): Promise<SessionContext>;
  /** Entries root → leaf. */
  path(sessionId: string): Promise<Entry[]>;
  /**
   * One page of the session's tree, flat (TreePage): entries after `cursor`
   * (default 0, the start), at most `limit` (default and most
   * LIMITS.clawTreeEntriesPerPage) and LIMITS.clawTreePageBytes of payloads.
   */
  tree(sessionId: string, page?: { cursor?: number; limit?: number }): Promise<TreePage>;
  checkpoints(sessionId: string): Promise<Checkpoint[]>;
  /**
   * A new session holding the first `index` messages of the source's path (with
   * the non-message entries between them); parentSessionId and forkEntryId set;
   * state copied; activated in the group when `expectation` is given.
   */
  fork(sessionId: string, index: number, expectation?: Expectation): Promise<SessionRecord>;
  /** Moves the leaf back to checkpoint `index` of the current path; later entries stay in the tree. */
  goto(sessionId: string, index: number): Promise<SessionRecord>;
  /** Moves the leaf to any entry of the session (refused if its path ends inside a tool batch). */
  branch(sessionId: string, entryId: number): Promise<SessionRecord>;
  /**
   * Compacts the current path in one transaction: under the leaf, a label
   * entry "Before compaction #N" (the recovery branch: its path is the
   * complete original one) and beside it the compaction entry, which becomes
   * the leaf. Refused (STALE) when the leaf moved since the caller read it,
   * INVALID_ARGUMENT when the first kept entry is not a message on the path.
   */
  compact(sessionId: string, input: CompactionInput): Promise<CompactionWritten>;
  /**
   * Gives every tool call on the path without a result an error result saying
   * it was interrupted and its effects are unknown (one transaction). Returns the appended entries.
   */
  closeInterruptedToolCalls(sessionId: string): Promise<Entry[]>;

  // state
  getState(sessionId: string): Promise<SessionState>;
  /** Changes the named fields; model/thinking changes also append model_change/thinking_change entries, in the same transaction. */
  updateState(sessionId: string, patch: Partial<SessionState>): Promise<SessionState>;

  // usage ledger
  recordUsage(row: UsageInput): Promise<void>;
  usageSummary(filter?: UsageFilter): Promise<UsageTotals[]>;

  // idempotency
  /** Records a client's idempotency key for a group; false when it was already recorded (the input must not run again). */
  recordInputKey(group: string, key: string, sessionId: string): Promise<boolean>;
  /** True when an input with this key was admitted to the group before. */
  hasInputKey(group: string, key: string): Promise<boolean>;

  // leases (one owner per group; the scale-out issue adds several workers)
  /** Takes or renews the lease; refused (CONFLICT naming the holder) while another live owner holds it. */
  acquireLease(group: string, owner: LeaseOwner, now: number, leaseMs?: number): Promise<LeaseRecord>;
  releaseLeases(ownerId: string): Promise<void>;
  /** Renews every unexpired lease of `ownerId` to `now + leaseMs` in one statement; returns the groups renewed (the others are lost). */
  renewLeases(ownerId: string, now: number, leaseMs: number): Promise<string[]>;
  /** Gives one group up; false when `ownerId` no longer holds it. */
  releaseLease(group: string, ownerId: string): Promise<boolean>;
  listLeases(): Promise<LeaseRecord[]>;
  getLease(group: string): Promise<LeaseRecord | undefined>;

  // gateway services' own tables (scheduler, memory): the store's connections (serialized with its own work on SQLite; concurrent, SERIALIZABLE, on PostgreSQL)
  /** Runs `work` in one transaction: it commits only if `work` resolves (`options.rowLocks`: see TransactionOptions). */
  withTransaction<T>(work: (sql: Sql) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /** Runs reads outside a transaction (on SQLite after the store's earlier work; on PostgreSQL at once, on its own connection). */
  withRead<T>(work: (sql: Sql) => Promise<T>): Promise<T>;
  /**
   * Runs one write that is a single statement, outside a transaction: one statement is atomic on
   * its own, and on PostgreSQL this saves the BEGIN, SET TRANSACTION and COMMIT round trips (the
   * hot-path bookkeeping of several workers: leases, heartbeats, handoffs, relayed events). Never
   * for two statements that must commit together.
   */
  withStatement<T>(work: (sql: Sql) => Promise<T>): Promise<T>;

  close(): Promise<void>;
}
