/**
 * Every bound xdog enforces, in one place. Going over a limit is an explicit
 * `XdogError` (code `LIMIT_EXCEEDED` or a more specific one), never truncation.
 * Values come from the seeds (see shared/reference/agent-features.md).
 */

import { MAX_TAPS_PER_HOOK } from '../hooks/tap.js';

const KiB = 1024;
const MiB = 1024 * KiB;

/** claw workers: the handoff wait, and the store's lock wait; a client's call deadline is derived from both. */
const CLAW_HANDOFF_SECONDS = 30;
const CLAW_STORE_LOCK_WAIT_MS = 5_000;

export const LIMITS = Object.freeze({
  /** Taps one hook accepts (per hook instance); enforced by hooks/tap.ts. */
  hookTapsPerHook: MAX_TAPS_PER_HOOK,

  /** Events buffered by one prompt stream before the producer waits. */
  eventBuffer: 256,

  /** Identified queued inputs (steer + follow-up lanes together). */
  queuedInputs: 32,
  /** Text of one queued input, in UTF-8 bytes. */
  queuedInputBytes: 16 * KiB,
  /** Text of one user message, in UTF-8 bytes. */
  messageTextBytes: 512 * KiB,

  /** inputTransform: text a transform may return, in UTF-8 bytes. */
  inputTransformTextBytes: 1 * MiB,
  /** inputTransform: reject reason, in UTF-8 bytes. */
  inputTransformReasonBytes: 2000,
  /** inputTransform: handled feedback (non-empty), in UTF-8 bytes. */
  inputTransformFeedbackBytes: 64 * KiB,

  /** Image bytes per request when a model declares no limit. */
  defaultImageBytes: 32 * MiB,

  /** Whole-agent snapshot document, in bytes of JSON. */
  snapshotBytes: 64 * MiB,
  /** One message fragment of a split snapshot, in bytes of JSON. */
  snapshotFragmentBytes: 8 * MiB,
  /** A faux provider script file (JSON), in bytes. */
  fauxScriptBytes: 64 * MiB,
  /** Requests a faux stream function keeps in `requests` (the newest; `callCount` counts all). The faux provider of a kernel (CLI, gateway) keeps none: XDOG_FAUX_LOG records them on disk. */
  fauxRecordedRequests: 256,

  /** Compaction: custom summary, in UTF-8 bytes. */
  compactionSummaryBytes: 256 * KiB,
  /** Compaction: details JSON, in bytes. */
  compactionDetailsBytes: 64 * KiB,
  /** Compaction: the focus a user gives `compact()` / `xdog claw compact --focus`, in UTF-8 bytes. */
  compactionInstructionsBytes: 16 * KiB,

  /** Provider error message kept on an assistant message, in UTF-8 bytes. */
  providerErrorMessageBytes: 8192,

  /** Provider retries of one request (429, 5xx, dropped connection; only before output started). */
  providerRetryAttempts: 4,
  /** Longest wait before one provider retry, in ms; a longer Retry-After is an error, not a wait. */
  providerRetryMaxDelayMs: 60_000,
  /** First backoff delay of provider retries, in ms (doubles per attempt, with jitter). */
  providerRetryBaseDelayMs: 1000,
  /** A secret (API key) piped on stdin to `xdog agent login`, in bytes. */
  secretInputBytes: 64 * KiB,
  /** The credentials file, in bytes. */
  credentialsFileBytes: 1 * MiB,

  /** bash tool: output kept for the model (the newest bytes; a notice says what was cut). */
  bashOutputBytes: 64 * KiB,
  /** bash tool: how long output is still read after the command exits while a background process holds it open, in ms. */
  bashOutputGraceMs: 500,
  /** sandbox: processes (and threads) one sandboxed command may have at once; a fork bomb stops there. */
  sandboxPids: 256,
  /** sandbox: hosts one `network: { allow }` list may name. */
  sandboxAllowHosts: 64,
  /** sandbox: extra writable paths one policy may name. */
  sandboxWritablePaths: 32,
  /** sandbox: how long probing the machine (a trial bwrap run) may take, in ms. */
  sandboxProbeTimeoutMs: 10_000,
  /** sandbox: the allow-list proxy's wait for a request line and headers, in ms. */
  sandboxProxyHeaderTimeoutMs: 10_000,
  /** sandbox: connections the allow-list proxy serves at once, per sandboxed process. */
  sandboxProxyConnections: 64,
  /** bash tool: default timeout, in seconds. */
  bashDefaultTimeoutSeconds: 120,
  /** bash tool: largest timeout a call may ask for, in seconds. */
  bashMaxTimeoutSeconds: 3600,
  /** bash tool: bytes of one command; Linux refuses a single program argument of 128 KiB or more (E2BIG). */
  bashCommandBytes: 128 * KiB - 1,
  /** read tool: bytes one call returns. */
  readToolBytes: 256 * KiB,
  /** read tool: lines one call returns. */
  readToolLines: 2000,
  /** read/write/edit tools: size of a file they load whole, in bytes. */
  fileToolFileBytes: 16 * MiB,
  /** ls/find tools: entries one call returns. */
  listToolEntries: 1000,
  /** grep tool: matches one call returns. */
  grepToolMatches: 200,
  /** grep tool: a file larger than this is skipped (and counted), in bytes. */
  grepToolFileBytes: 2 * MiB,
  /** grep/find tools: files one walk visits. */
  walkToolFiles: 100_000,
  /** grep/find tools: symbolic links named in the notice that they were not followed (the rest are counted). */
  walkNoticeNames: 10,
  /** grep/read tools: characters of one line shown to the model. */
  toolLineChars: 2000,
  /** web_search tool: results one call returns. */
  webSearchResults: 10,
  /** web_search tool: HTTP response body, in bytes. */
  webSearchResponseBytes: 2 * MiB,
  /** web_search tool: one search, request to last byte, in ms. */
  webSearchTimeoutMs: 30_000,
  /** embed tool: texts one call embeds. */
  embedTexts: 32,
  /** embed tool: bytes of one text (UTF-8). */
  embedTextBytes: 32 * KiB,
  /** embed tool: the provider's HTTP response body, in bytes. */
  embedResponseBytes: 16 * MiB,
  /** embed tool: one embeddings request, in ms. */
  embedTimeoutMs: 60_000,

  /** Config file size, in bytes. */
  configFileBytes: 1 * MiB,
  /** A `--tool-ctx` value or file, in bytes. */
  toolCtxBytes: 1 * MiB,
  /** A plugin's package.json read during discovery, in bytes. */
  pluginManifestBytes: 1 * MiB,
  /** JSON values from people and models (Flow inputs): nesting depth; deeper would overflow recursive checks. */
  jsonValueDepth: 128,
  /** Config and Flow YAML: copies aliases may make of anchored data (yaml's maxAliasCount); more is an alias bomb. */
  yamlAliasExpansions: 100,
  /** The discovery cache file; a bigger one is ignored and rebuilt (it is only a cache). */
  discoveryCacheBytes: 1 * MiB,
  /** node_modules folders the discovery cache remembers (the least recently scanned are forgotten). */
  discoveryCacheFolders: 64,

  /** One SKILL.md file (front matter and body), in bytes. */
  skillFileBytes: 256 * KiB,
  /** Skills one SkillRepo index may hold. */
  skillsPerRepo: 1024,
  /** Skills active on one agent at once (session and turn together). */
  activeSkills: 32,
  /** Bytes of the skill bodies one claw session has selected at once (session and turn together). */
  activeSkillBytes: 1 * MiB,

  /** One Flow workflow file, in bytes. */
  flowFileBytes: 1 * MiB,
  /** Steps in one Flow workflow. */
  flowSteps: 128,
  /** One rendered Flow value (a prompt, tool arguments, the result), in bytes of JSON. */
  flowValueBytes: 1 * MiB,

  /** Eyes: named targets (open pages) the per-user daemon keeps at once. */
  eyesTargets: 8,
  /** Eyes: watches one user keeps (durable, in the daemon's store). */
  eyesWatches: 32,
  /** Eyes: the shortest watch interval, in seconds. */
  eyesWatchMinIntervalSeconds: 10,
  /** Eyes: the longest watch interval, in seconds (one day). */
  eyesWatchMaxIntervalSeconds: 86_400,
  /** Eyes: milliseconds a navigation (until "load") may take before the page is killed. */
  eyesNavigationMs: 15_000,
  /** Eyes: milliseconds one screenshot, text read or outline may take before the page is killed. */
  eyesActionMs: 10_000,
  /** Eyes: the JavaScript heap of one page's renderer, in MiB (over it the renderer dies, its target is marked crashed). */
  eyesPageHeapMiB: 128,
  /** Eyes: the largest viewport side, in CSS pixels. */
  eyesViewportMax: 4096,
  /** Eyes: the tallest full-page screenshot, in CSS pixels. */
  eyesFullPageHeight: 16_384,
  /** Eyes: one screenshot, in bytes of PNG (a model's own image limit may be lower). */
  eyesScreenshotBytes: 5 * MiB,
  /** Eyes: text or outline one eyes_read returns, in characters. */
  eyesReadChars: 64_000,
  /** Eyes: console, error and network events one target keeps between two eyes_console calls (older ones are counted as dropped). */
  eyesConsoleEvents: 200,
  /** Eyes: one console event's text, in characters. */
  eyesConsoleEventChars: 2000,
  /** Eyes: the file (or the output of a command) a watch compares, in bytes. */
  eyesWatchBytes: 1 * MiB,
  /** Eyes: entries of a watched folder (recursive). */
  eyesWatchFolderEntries: 5000,
  /** Eyes: milliseconds a watched command may run. */
  eyesWatchCommandMs: 30_000,
  /** Eyes: the diff one observation records, in lines (the rest are counted, not shown). */
  eyesDiffLines: 200,
  /** Eyes: observations kept per watch (the oldest are deleted first). */
  eyesObservationsPerWatch: 500,
  /** Eyes: milliseconds `ensure` waits for a daemon to answer (its start included). */
  eyesEnsureMs: 30_000,
  /** Eyes: the daemon's log before it is rotated, in bytes. */
  eyesLogBytes: 4 * MiB,

  /** ACP: one newline-delimited JSON-RPC message from the client, in bytes. */
  acpMessageBytes: 32 * MiB,

  /** MCP: length of a server id (ASCII). */
  mcpServerIdLength: 32,
  /** MCP: Roots configured for one server. */
  mcpRoots: 16,
  /** Tool names one MCP server may list in read_only_tools. */
  mcpReadOnlyTools: 256,
  /** Providers: largest per-request `timeout` a config may set, in seconds (a day; Node timers stop at about 24.8 days). */
  providerTimeoutMaxSeconds: 86_400,
  /** MCP: largest per-server request timeout, in seconds. */
  mcpTimeoutMaxSeconds: 3600,
  /** MCP: request timeout when the config names none, in seconds. */
  mcpDefaultTimeoutSeconds: 60,
  /** MCP: how long close() waits for an HTTP server to answer the DELETE that ends its session, in ms. */
  mcpSessionEndMs: 2000,
  /** MCP: one JSON-RPC message (stdio frame or HTTP body), in bytes. */
  mcpMessageBytes: 8 * MiB,
  /** MCP: decoded bytes of one binary content block. */
  mcpBlockDecodedBytes: 4 * MiB,
  /** MCP: retained annotations/_meta of one result, in bytes of JSON. */
  mcpMetadataBytes: 1 * MiB,
  /** MCP: stderr kept from a stdio server (the newest bytes). */
  mcpStderrBytes: 64 * KiB,
  /** MCP: characters of that stderr quoted in an error or status (the newest; a notice says what was left out). */
  mcpStderrShownChars: 2000,
  /** MCP: pages one catalog listing (tools, resources, templates, prompts) may take. */
  mcpCatalogPages: 64,
  /** MCP: entries one catalog may hold. */
  mcpCatalogEntries: 4096,
  /** MCP: one advertised JSON Schema, in bytes of JSON. */
  mcpSchemaBytes: 1 * MiB,
  /** MCP: tool alias length (provider tool-name limit). */
  mcpToolAliasLength: 64,
  /** MCP: completion values one answer may carry. */
  mcpCompletionValues: 100,
  /** MCP: completion requests per server at once (one running, one waiting). */
  mcpCompletionsPending: 2,
  /** MCP 2026-07-28: `input_required` rounds one request may take before it fails. */
  mcpInputRounds: 8,
  /** MCP 2026-07-28: input requests one `input_required` result may carry. */
  mcpInputRequests: 16,
  /** MCP: bytes of a CA file (`ca_file`). */
  mcpCaFileBytes: 1 * MiB,
  /** MCP: seconds a person gets to answer one elicitation (also bounded by the request's own timeout). */
  mcpElicitationSeconds: 300,
  /** MCP: fields one elicitation form may ask for. */
  mcpElicitationFields: 32,
  /** MCP: characters of one elicitation message or answer field. */
  mcpElicitationChars: 4000,
  /** MCP: the largest `maxTokens` a server's sampling request may ask for. */
  mcpSamplingMaxTokens: 8192,
  /** MCP: messages one sampling request may carry. */
  mcpSamplingMessages: 64,
  /** MCP: sampling calls one claw group runs at once for its servers; one more is refused. */
  mcpSamplingRunning: 2,
  /** MCP: elicitations one claw group's clients may be asked at once; one more is declined. */
  mcpElicitationsPending: 8,
  /** MCP: resources one claw group may follow per server (`mcp.subscribe`). */
  mcpResourceSubscriptions: 32,
  /** MCP: milliseconds a stdio server gets after SIGTERM before SIGKILL. */
  mcpKillGraceMs: 2000,
  /** claw: a session name, in UTF-8 bytes (control and bidi characters are refused). */
  clawSessionNameBytes: 256,
  /** claw: sessions whose model context a store keeps in memory (the live ones; least recently used go first). */
  clawContextCacheSessions: 16,
  /** claw: the stored JSON those cached contexts came from, in bytes, over all sessions (least recently used go first). */
  clawContextCacheBytes: 256 * MiB,
  /** claw: an auto-summary of a session (its first user text), in characters. */
  clawSessionSummaryChars: 200,
  /** claw: one JSON-RPC frame (one NDJSON line) on the gateway socket, in bytes. */
  clawFrameBytes: 8 * MiB,
  /** claw: one notification the gateway sends in parts because it is over clawFrameBytes, in bytes of JSON (both ends hold to it). */
  clawNotificationBytes: 128 * MiB,
  /** claw: the bytes of one such notification that one `notification.part` frame carries (base64, so the frame stays well under clawFrameBytes). */
  clawNotificationPartBytes: 1 * MiB,
  /** claw: connections the gateway serves at once. */
  clawConnections: 64,
  /** claw: seconds a connection has to send a valid `hello` before it is closed (a real client says it at once). */
  clawHelloTimeoutSeconds: 3,
  /**
   * claw: connections waiting for their `hello` at once, of clawConnections; one
   * more closes the one that waited longest, so idle sockets never lock real clients out.
   */
  clawPreAuthConnections: 16,
  /** claw: model turns the pre-compaction memory flush may take (then it is stopped). */
  clawMemoryFlushTurns: 4,
  /** channels: messages one channel's inbox holds before it stops taking more (polling pauses, pushes are refused). */
  channelInboxMessages: 50,
  /** channels: one inbound channel message (text and envelope), in UTF-8 bytes. */
  channelMessageBytes: 64 * KiB,
  /** channels: one outbound channel request, in seconds, before it is abandoned (never retried). */
  channelSendTimeoutSeconds: 15,
  /** channels: a channel's saved state (a poll cursor, an offset), in UTF-8 bytes. */
  channelStateBytes: 16 * KiB,
  /** claw: queued runtime inputs per group (steer and follow-up lanes together, and prompts waiting for the group). */
  clawQueuedInputs: 50,
  /** claw: text of one queued input or prompt, in UTF-8 bytes. */
  clawInputBytes: 64 * KiB,
  /** Children: active at once per parent. */
  childActive: 3,
  /** Children: records a parent keeps (finished ones count until closed). */
  childRetained: 16,
  /** Children: the longest (and default) deadline of one child run, in seconds. */
  childTimeoutSeconds: 120,
  /** Children: the most (and default) model calls of one child. */
  childModelCalls: 16,
  /** Children: the most (and default) input plus output tokens of one child. */
  childTokens: 32_000,
  /** Children: a task or an input's UTF-8 bytes. */
  childInputBytes: 16 * KiB,
  /** Children: the parent's conversation a child may inherit (inherit_context), in estimated tokens; also at most half the child's token cap. */
  childContextTokens: 8_000,
  /**
   * Children: the JSON of one compaction archive (a child's complete history
   * saved before a compaction), in bytes. Over it the compaction fails and
   * the child goes on with its full history; every archive kept fits one
   * `agents.compaction_archive` answer (under clawFrameBytes).
   */
  childCompactionArchiveBytes: 4 * MiB,
  /** Children: a `child_presets` catalog, entries and JSON bytes. */
  childPresets: 32,
  childPresetsBytes: 256 * KiB,
  /** Plan mode: the objective's UTF-8 bytes. */
  planObjectiveBytes: 4 * KiB,
  /** Plan mode: steps in one plan. */
  planSteps: 64,
  /** Plan mode: one step's UTF-8 bytes. */
  planStepBytes: 1 * KiB,
  /** Todos: items in one session's todo list (todo_write replaces the whole list). */
  todoItems: 50,
  /** claw goals: a goal's text, in UTF-8 bytes (it is part of every continuation input). */
  goalTextBytes: 4 * KiB,
  /** claw goals: the model's progress note (goal_update), in UTF-8 bytes. */
  goalNoteBytes: 4 * KiB,
  /** claw goals: the check command, in UTF-8 bytes. */
  goalCheckBytes: 4 * KiB,
  /** claw goals: how long the check command may run, in milliseconds, before it is killed (and counts as failed). */
  goalCheckTimeoutMs: 120_000,
  /** claw goals: the check command's output kept for the model, in bytes (more fails the check: it is never cut silently). */
  goalCheckOutputBytes: 16 * KiB,
  /** Todos: one item's text, in UTF-8 bytes. */
  todoItemBytes: 500,
  /** claw: an idempotency key, in UTF-8 bytes. */
  clawIdempotencyKeyBytes: 128,
  /** claw: one chunk of a chunked read (transcript.read, agents.source, mcp.read, mcp.prompt), in bytes before base64. */
  clawSnapshotChunkBytes: 64 * KiB,
  /** claw: a whole session transcript `transcript.read` serves (one snapshot), in bytes. */
  clawTranscriptBytes: 256 * MiB,
  /** claw: snapshots one chunked-read server keeps for later chunks (least recently used go first). */
  clawSnapshotsCached: 8,
  /** claw: bytes of snapshots one chunked-read server keeps (least recently used go first; the newest always stays). */
  clawSnapshotCacheBytes: 256 * MiB,
  /** claw: how long a snapshot nobody reads stays for its later chunks, in milliseconds (then a later chunk is NOT_FOUND: start again). */
  clawSnapshotIdleMs: 5 * 60_000,
  /** claw: how long a client waits for one chunk of a chunked read, in milliseconds. */
  clawChunkDeadlineMs: 60_000,
  /** claw: a chunked read a client keeps in memory while it arrives; a larger one goes to a private (0600) temp file. */
  clawChunkedMemoryBytes: 4 * MiB,
  /** claw: sessions one list or search answers. */
  clawSessionsPerPage: 200,
  /** claw: entries one `session.tree` page answers (at most). */
  clawTreeEntriesPerPage: 1000,
  /** claw: payload bytes one `session.tree` page carries before it ends (it always holds at least one entry). */
  clawTreePageBytes: 4 * MiB,
  /** claw: entries a client reads for a whole tree (every page) before it stops with LIMIT_EXCEEDED. */
  clawTreeReadEntries: 200_000,
  /** claw: search query text, in UTF-8 bytes. */
  clawSearchQueryBytes: 256,
  /** claw: bytes queued for one slow client before it is disconnected (a slow reader never blocks a run). */
  clawClientBacklogBytes: 16 * MiB,
  /** claw: bytes of notifications over the frame limit (sent in parts) waiting for one slow client before it is disconnected. */
  clawClientPartsBacklogBytes: 256 * MiB,
  /** claw: bytes handed to a client's socket before further notifications wait in the gateway (where stream deltas are merged). */
  clawClientWriteAheadBytes: 1 * MiB,
  /** claw: text one merged stream delta carries at most, in UTF-8 bytes (the next delta starts a new notification). */
  clawMergedDeltaBytes: 1 * MiB,
  /** claw: connections one process keeps open to a PostgreSQL claw store. */
  clawStorePoolSize: 10,
  /** claw: seconds to wait for a PostgreSQL claw store to accept a connection (then UNAVAILABLE). */
  clawStoreConnectSeconds: 10,
  /** claw: how long a claw store statement waits for another connection's lock (SQLite busy timeout, PostgreSQL lock_timeout), in ms; then BUSY. */
  clawStoreLockWaitMs: CLAW_STORE_LOCK_WAIT_MS,
  /**
   * claw: bytes of a SQLite claw store file read through a memory map (`PRAGMA mmap_size`; the
   * rest through read calls). The open's integrity check and a long session's first read then
   * cost a fraction of copying every page through the page cache.
   */
  clawStoreMmapBytes: 256 * MiB,
  /** claw: seconds a starting process waits for another one's migrations of a PostgreSQL claw store. */
  clawStoreMigrationLockSeconds: 120,
  /** claw: times a PostgreSQL transaction is re-run after a serialization failure or deadlock (then BUSY). */
  clawStoreSerializationRetries: 10,
  /** claw: first backoff before re-running a PostgreSQL transaction, in ms (doubles per attempt, with jitter). */
  clawStoreRetryBaseDelayMs: 5,
  /** claw: longest backoff before re-running a PostgreSQL transaction, in ms. */
  clawStoreRetryMaxDelayMs: 200,
  /** claw: seconds a group lease lasts without renewal (a crashed owner's groups free up after it). */
  clawLeaseSeconds: 30,
  /** claw: the shortest `claw.lease_seconds` (a lease renewed every third of it must survive a busy store). */
  clawLeaseSecondsMin: 3,
  /** claw: the longest `claw.lease_seconds` (a dead worker's groups wait this long for a new owner). */
  clawLeaseSecondsMax: 300,
  /**
   * claw workers: how often a worker checks, without the database, whether the pid of another
   * worker on its host is gone, in ms; a death found starts a round at once (its groups are free).
   */
  clawPeerWatchMs: 1_000,
  /** claw workers: seconds a method call handed to another worker's group waits for its answer (from the call's start). */
  clawHandoffSeconds: CLAW_HANDOFF_SECONDS,
  /**
   * claw clients: the default deadline of a call, in seconds. It covers the gateway's longest
   * legitimate wait, a handoff (clawHandoffSeconds) and the store statements after it (a few
   * lock waits), so a client never gives up on a call the gateway still runs.
   */
  clawCallSeconds: CLAW_HANDOFF_SECONDS + Math.ceil((4 * CLAW_STORE_LOCK_WAIT_MS) / 1000),
  /** claw workers: the params or the answer of one handed-off call, in bytes of JSON. */
  clawHandoffBytes: 1 * MiB,
  /** claw workers: milliseconds between checks of the store for handoffs and relayed events on SQLite (PostgreSQL is woken by NOTIFY). */
  clawWorkerPollMs: 150,
  /**
   * claw workers on PostgreSQL: milliseconds between the slow checks that back up LISTEN/NOTIFY
   * (handoffs, answers, relayed events, jobs), so a notification lost while the LISTEN connection
   * was down delays work by at most this, never loses it. At least 1 s: it is not the hot path.
   */
  clawWakeupFallbackMs: 2_000,
  /** claw workers on PostgreSQL: the first wait before the LISTEN connection is made again after it broke, in ms (doubling per failure). */
  clawWakeupReconnectBaseMs: 100,
  /** claw workers on PostgreSQL: the longest wait between two attempts to make the LISTEN connection again, in ms. */
  clawWakeupReconnectMaxMs: 5_000,
  /** claw workers: seconds relayed events stay in the store before they are pruned. */
  clawRelayRetentionSeconds: 300,
  /** claw workers: relayed events read from the store in one batch. */
  clawRelayBatchEvents: 500,
  /** claw workers: bytes of relayed events (their JSON) read from the store in one batch, past its first event (one event can be large). */
  clawRelayBatchBytes: 16 * MiB,
  /** claw workers: events a group's owner holds for remote subscribers before they are written (more are refused loudly). */
  clawRelayBacklogEvents: 10_000,
  /** claw: the gateway log file, in bytes, before it is rotated to `gateway.log.1`. */
  clawLogBytes: 8 * MiB,
  /** claw: the client name a connection gives in `hello`, in characters. */
  clawClientNameChars: 64,
  /** claw: client features one `hello` may declare (each at most clawClientNameChars characters). */
  clawClientFeatures: 16,
  /** Gateway protocol: requests one connection may have running at once (its jobs: `jobs.list`, `jobs.cancel`); more are refused. */
  clawConnectionJobs: 256,
  /** claw job queue (pg-boss): seconds a job may stay active before pg-boss expires it (failed, never retried); a takeover fails a dead owner's active jobs sooner. */
  groupJobExpirySeconds: 6 * 3600,
  /** claw job queue (pg-boss): seconds a completed job is kept (its key still dedupes a second send) before it is archived. */
  groupJobKeepCompletedSeconds: 24 * 3600,
  /** claw job queue (pg-boss): days an archived job is kept before it is deleted. */
  groupJobArchiveDays: 7,
  /**
   * claw job queue (pg-boss): how often an idle group's queue is checked anyway, in ms. A send wakes
   * the owner's loop at once (on the same worker directly, on another by NOTIFY), so this only
   * bounds the delay after a lost notification; it is what 1,000 idle groups cost the database.
   */
  groupJobPollMs: 2_000,
  /** claw job queue (pg-boss): the longest wait between two fetches of a group whose fetch failed (the database restarting), in ms; it starts at 100 ms and doubles. */
  groupJobRetryMaxMs: 5_000,
  /** claw job queue (pg-boss): connections the queue's own pool opens (one fetch or update at a time per group worked). */
  groupJobPoolConnections: 4,
  /** claw job queue (in-process): finished job keys remembered so a second send of the same key is still a duplicate. */
  groupJobFinishedKeys: 10_000,
  /** claw job queue: seconds a fetched job waits for the service that handles its type to start, before it is dropped with a log line. */
  groupJobHandlerWaitSeconds: 30,
  /** claw run log: days a run row is kept (older rows of a group are pruned when it records a run). */
  clawRunLogDays: 30,
  /** claw run log: run rows kept per group (the oldest beyond it are pruned when the group records a run). */
  clawRunLogRowsPerGroup: 10_000,
  /**
   * claw run log: a group's rows are pruned with its first recorded run in a process and then with
   * every this-many-th, so a group holds at most this many less one rows over clawRunLogRowsPerGroup
   * (and rows up to that many runs past clawRunLogDays) while a run costs one statement less.
   */
  clawRunLogPruneEvery: 16,
  /** claw run log: rows one `runs.list` page returns. */
  clawRunLogPage: 500,
  /** claw run log: ended runs waiting to be written; past it a run is logged as not recorded, never blocking a group. */
  clawRunLogPendingWrites: 1_000,
  /** claw scheduler: jobs one group may have. */
  scheduleJobsPerGroup: 200,
  /** claw scheduler: a job's prompt, in UTF-8 bytes (it becomes one system input). */
  schedulePromptBytes: 16 * KiB,
  /** claw scheduler: a job's name, in characters. */
  scheduleJobNameChars: 64,
  /** claw scheduler: run rows one history page returns. */
  scheduleHistoryPage: 200,
  /** claw scheduler: the default grace, in seconds, within which a run missed while the gateway was down still runs once. */
  scheduleGraceSecondsDefault: 3600,
  /** claw scheduler: the longest grace a job may ask for, in seconds (one week). */
  scheduleGraceSecondsMax: 7 * 24 * 3600,
  /** claw scheduler: the shortest fixed interval, in seconds. */
  scheduleIntervalSecondsMin: 60,
  /** claw scheduler: how long the scheduler sleeps at most before it re-checks the clock, in seconds. */
  scheduleWakeSeconds: 30,
  /** claw resets: the longest idle period a reset may wait for, in minutes (30 days). */
  resetIdleMinutesMax: 30 * 24 * 60,
  /** claw TUI: images attached to one draft (the gateway takes at most 4 per input). */
  tuiAttachmentsPerDraft: 4,
  /** claw TUI: one attached image file, in bytes. */
  tuiAttachmentBytes: 10 * MiB,
  /** claw TUI: attached images held by the client at once (draft and queued turns), in bytes. */
  tuiAttachmentsRetainedBytes: 40 * MiB,
  /** claw TUI: characters of a long message wrapped as one piece (a render re-wraps only the piece that grows). */
  tuiTextPieceChars: 16 * KiB,
  /** claw TUI: messages of a session drawn when it opens (the latest; a line says how many earlier ones /transcript shows). */
  tuiShownMessages: 200,
  /** claw TUI: a draft read back from $VISUAL / $EDITOR, in bytes (what is sent is still bound by clawInputBytes). */
  tuiDraftBytes: 1 * MiB,
  /** claw TUI: the keybindings.json file, in bytes. */
  tuiKeybindingsFileBytes: 64 * KiB,
  /** claw: `workspace.diff`, the git diff of a group's workspace one answer carries, in bytes (over it, only the file list). */
  workspaceDiffBytes: 1 * MiB,
  /** claw: how long `workspace.diff` lets git run, in milliseconds. */
  workspaceDiffMs: 15_000,
  /** claw: `agents.source`, a child's stored transcript as JSONL, read in chunks (one snapshot), in bytes. */
  childSourceBytes: 128 * MiB,
  /** claw: `agents.input_source`, one journaled child input with its images (4 of 10 MiB, in base64) as JSON, read in chunks, in bytes. */
  childInputSourceBytes: 64 * MiB,
  /** claw: `mcp.read` and `mcp.prompt`, one document as JSON, read in chunks (one snapshot), in bytes. */
  mcpPreviewBytes: 64 * MiB,
  /** claw TUI: text copied through the terminal (OSC 52), in bytes; more goes to a private file (terminals drop longer sequences). */
  tuiOsc52Bytes: 100 * KiB,
  /** claw TUI and `agent chat`: a draft kept in the draft file between runs, in bytes. */
  savedDraftBytes: 64 * KiB,
  /** claw: saved draft snapshots (`/agents drafts`, `/draft saved`, `xdog claw agents drafts`) one group keeps; a save over it is refused. */
  savedDraftsPerGroup: 32,
  /** claw: one saved draft snapshot file, in bytes (its text, up to savedDraftBytes, JSON-escaped, and its metadata). */
  savedDraftRecordBytes: 400 * KiB,
  /** claw: milliseconds a save or delete waits for another process's lock on a group's saved drafts before it is refused. */
  savedDraftLockMs: 3000,
  /** `agent chat --session`: one saved chat file (its header line and the agent snapshot), in bytes. */
  chatSessionBytes: 32 * MiB,
  /** `agent chat`: the header line of a saved chat that `/sessions` reads, in bytes. */
  chatSessionHeaderBytes: 8 * KiB,
  /** `agent chat`: saved chats `/sessions` lists (newest first; it says how many more there are). */
  chatSessionsListed: 50,
  /** claw TUI: a whole session transcript read for display, export or search, in bytes. */
  tuiTranscriptBytes: 64 * MiB,
  /** claw TUI: characters the /transcript browser holds (its whole source, redacted); past it the view ends with a line saying so. */
  tuiTranscriptViewChars: 16 * MiB,
  /** memory: the text of one memory, in characters. */
  memoryEntryChars: 4000,
  /** memory: tags on one memory, and the characters of one tag. */
  memoryTags: 8,
  memoryTagChars: 32,
  /** memory: memories one group keeps; a write past it is refused until some are forgotten. */
  memoryEntriesPerGroup: 10_000,
  /** memory: a search query, in characters, and the words it may hold. */
  memoryQueryChars: 500,
  memoryQueryTerms: 24,
  /** memory: results one search returns (its default is smaller, see plugins/memory). */
  memorySearchResults: 25,
  /** memory: memories one list page returns. */
  memoryListPage: 200,
  /** extensions: one JSON-RPC frame between the host and an extension worker, in bytes. */
  extensionFrameBytes: 8 * MiB,
  /** extensions: a payload larger than one block (a context, a compaction preparation) crosses the channel in blocks of this many bytes, each checked against the whole payload's SHA-256. */
  extensionTransferBlockBytes: 64 * KiB,
  /** extensions: one chunked payload, in bytes of JSON (over it the call fails with LIMIT_EXCEEDED, nothing is sent). */
  extensionTransferBytes: 128 * MiB,
  /** extensions: milliseconds one whole chunked transfer may take, first block to last (an absolute deadline, apart from the callback's). */
  extensionTransferTimeoutMs: 120_000,
  /** extensions: chunked transfers one side of a channel receives at once. */
  extensionTransfersOpen: 4,
  /** extensions: commands one extension registers. */
  extensionCommands: 32,
  /** extensions: completion items one completion callback returns. */
  extensionCompletionItems: 32,
  /** extensions: the prefix a completion request sends, in UTF-8 bytes. */
  extensionCompletionPrefixBytes: 4 * KiB,
  /** extensions: a rich command result's image, in decoded bytes (PNG, JPEG or WebP by magic bytes). */
  extensionCommandImageBytes: 2 * MiB,
  /** extensions: a rich command result's structured JSON and its details, each in bytes of JSON. */
  extensionCommandStructuredBytes: 64 * KiB,
  /** extensions: a rich command result's text, in UTF-8 bytes (also the limit of a plain string answer). */
  extensionCommandTextBytes: 1 * MiB,
  /** extensions: nesting depth of a rich command result's structured JSON and details. */
  extensionCommandJsonDepth: 64,
  /** extensions: the lines of structured JSON or details a front end shows of a rich result (the artifact keeps all of it). */
  extensionCommandShownLines: 200,
  /** extensions: a whole rich command result, in bytes of JSON (image base64 included), so that its artifact always fits extensionArtifactBytes. */
  extensionCommandResultBytes: 3.5 * MiB,
  /** extensions: an `xdog.extension-command/v1` artifact file, in bytes. */
  extensionArtifactBytes: 4 * MiB,
  /** extensions: a public command name (`publicName`): a lower-case letter, then letters, digits or "-". */
  extensionPublicNameChars: 32,
  /** extensions: tools one extension registers. */
  extensionTools: 32,
  /** extensions: durable entries per session (all extensions together). */
  extensionEntriesPerSession: 128,
  /** extensions: one durable entry, in bytes of JSON. */
  extensionEntryBytes: 16 * KiB,
  /** extensions: all durable entries of one session, in bytes of JSON. */
  extensionEntriesTotalBytes: 512 * KiB,
  /** extensions: a dialog's timeout bounds, in seconds. */
  extensionDialogMinSeconds: 0.1,
  extensionDialogMaxSeconds: 600,
  /** Extension dialogs of one group waiting for a client's answer (`extension.dialog`); one more gets the no-answer at once. */
  extensionDialogsPending: 16,
  /** extensions: providers one extension registers, and models per provider. */
  extensionProviders: 4,
  extensionProviderModels: 32,
  /** extensions: events one provider stream may send, and their total bytes of JSON. */
  extensionStreamEvents: 4096,
  extensionStreamBytes: 8 * MiB,
  /** extensions: an error message from an extension provider, in UTF-8 bytes. */
  extensionErrorMessageBytes: 8192,
  /** extensions: milliseconds `setup(api)` may take before the extension is quarantined. */
  extensionSetupTimeoutMs: 10_000,
  /** extensions: milliseconds one hook or command callback may take before the extension is quarantined. */
  extensionCallbackTimeoutMs: 5_000,
  /** extensions: the bounds of `extension_timeout_ms`, the configurable callback deadline, in milliseconds. */
  extensionCallbackTimeoutMinMs: 100,
  extensionCallbackTimeoutMaxMs: 600_000,
  /** extensions: status keys one extension holds at once. */
  extensionStatusKeys: 32,
  /** extensions: status text of one key, in UTF-8 bytes. */
  extensionStatusBytes: 1 * KiB,
  /** extensions: entries on one page of `listSessions` / `getSessionTree`, and the page's encoded JSON in bytes (a fuller page ends early, with `hasMore`). */
  extensionSessionPageEntries: 50,
  extensionSessionPageBytes: 256 * KiB,
  /** extensions: a `listSessions` query, in UTF-8 bytes. */
  extensionSessionQueryBytes: 1000,
  /** extensions: sessions one `listSessions` call walks to build its catalog (over it the call is refused, never a partial catalog). */
  extensionSessionTraversal: 1_000_000,
  /** extensions: milliseconds a worker gets after SIGTERM before SIGKILL. */
  extensionKillGraceMs: 1000,
  /** extensions: the worker's stderr kept for error messages, in bytes. */
  extensionStderrTailBytes: 4 * KiB,

  /** generate_image: reference images one call sends. */
  imageReferences: 4,
  /** generate_image: bytes of one reference image file. */
  imageReferenceBytes: 10 * MiB,
  /** generate_image: milliseconds one generation may take (no automatic retry). */
  imageGenerationTimeoutMs: 180_000,
  /** generate_image: images saved by one call. */
  imagesPerGeneration: 4,
  /** generate_image: bytes saved by one call, all images together. */
  imageGenerationBytes: 32 * MiB,
  /** generate_image: one provider response body (base64 of the images above, plus JSON), in bytes. */
  imageResponseBytes: 44 * MiB,

  /** Telemetry: bytes of one recorded content attribute (with capture_content); the rest is replaced by a note of its size. */
  telemetryContentBytes: 16 * KiB,
  /** Telemetry: milliseconds the exporters get to flush when a process closes its telemetry. */
  telemetryFlushMs: 5_000,
  /** Diagnostics bundle: log lines kept from the end of the gateway log. */
  diagnosticsLogLines: 200,
  /** Diagnostics bundle: bytes read from the end of the gateway log. */
  diagnosticsLogBytes: 256 * KiB,
  /** Diagnostics bundle: slowest recent runs listed. */
  diagnosticsSlowRuns: 10,
  /** approvals: rules in one `approvals` section. */
  approvalRules: 500,
  /** approvals: the longest `expire_minutes` (30 days). */
  approvalExpireMinutesMax: 43_200,
  /** approvals: a deny reason a person gives, in bytes. */
  approvalReasonBytes: 2000,
  /** approvals: a bash line the policy parses, in bytes (longer lines are asked). */
  approvalShellBytes: 64 * KiB,
  /** A command line given as a setting ($VISUAL, $EDITOR) that is split into words without a shell, in bytes. */
  shellCommandLineBytes: 4 * KiB,
  /** approvals: nested `sh -c` / wrapper levels the policy sees through (deeper is asked). */
  approvalShellDepth: 8,
  /** approvals: "always allow" rules one group keeps (`xdog claw approvals forget` removes one). */
  approvalLearnedRules: 500,
  /** approvals: characters of a call's arguments an approval card in a chat shows (marked when shortened). */
  channelApprovalPreviewChars: 500,
  /**
   * approvals: milliseconds between the checks a waiting run makes of its row when answers wake it
   * (one gateway: in process; workers on PostgreSQL: NOTIFY). The check only backs the wake-up up
   * and notices expiry; without notifications between workers (SQLite) it polls clawWorkerPollMs.
   */
  approvalWaitFallbackMs: 1_000,
  /** approvals: rows one `approvals.list` answers (newest first). */
  approvalsListed: 200,
  /** claw web: bytes of one request body the dashboard server reads (a prompt with its images fits; more is 413, nothing read further). */
  webBodyBytes: 1 * MiB,
  /** claw web: milliseconds a request has to send its whole body (a slow sender is cut, 408). */
  webBodyMs: 10_000,
  /** claw web: requests one connection may make per second on average (a token bucket; more is 429). */
  webRequestsPerSecond: 20,
  /** claw web: the burst of that bucket. */
  webRequestBurst: 60,
  /** claw web: seconds a one-time login link stays valid. */
  webLoginLinkSeconds: 600,
  /** claw web: login links waiting to be used at once (the oldest is dropped). */
  webLoginLinks: 16,
  /** claw web: hours a browser session (its cookie) lasts. */
  webSessionHours: 12,
  /** claw web: browser sessions at once (the oldest is logged out). */
  webSessions: 32,
  /** claw web: event streams (SSE) one browser session holds open at once. */
  webEventStreams: 4,
  /** claw web: bytes an event stream may have waiting for a slow browser before it is closed (the page reconnects and reads state). */
  webEventBacklogBytes: 8 * MiB,
  /** claw uploads: one image sent in chunks (`upload.begin`), in bytes (the TUI's attachment limit). */
  clawUploadBytes: 10 * MiB,
  /** claw uploads: the bytes one `upload.chunk` carries at most (base64 keeps its frame well under clawFrameBytes). */
  clawUploadChunkBytes: 1 * MiB,
  /** claw uploads: uploads one connection holds at once (begun, not yet used in an input). */
  clawUploadsPerConnection: 8,
  /** claw uploads: bytes one connection's held uploads may declare in total. */
  clawUploadConnectionBytes: 40 * MiB,
  /** claw uploads: milliseconds an upload is kept after its last chunk before it expires unused. */
  clawUploadTtlMs: 10 * 60 * 1000,
  /** claw TUI: recent tool calls and reasoning the Ctrl+O details viewer keeps. */
  tuiDetailEntries: 200,
  /** claw TUI: gateway notifications waiting for the next frame; one more applies the waiting ones at once (none is dropped). */
  tuiFrameBatchEvents: 4096,
  /** claw TUI: milliseconds a clipboard tool (wl-copy, wl-paste, xclip) may take. */
  tuiClipboardMs: 5000,
  /** claw TUI: files the `@file` completion indexes in a workspace. */
  tuiFileIndexEntries: 20_000,
  /** claw TUI: milliseconds the `@file` index may take to build (git ls-files or the walk). */
  tuiFileIndexMs: 3000,
  /** claw TUI: pixels of one attached image (width x height), 100 megapixels. */
  tuiAttachmentPixels: 100_000_000,
});

export type LimitName = keyof typeof LIMITS;

/** UTF-8 byte length of a string. */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
