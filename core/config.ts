/**
 * The config file: one YAML document, validated by one zod schema whose errors
 * name the key path and the line. Unknown keys are errors. Secrets never live
 * here: the file names environment variables instead. Sections grow with
 * their features.
 */
import path from 'node:path';
import { LineCounter, parseDocument, isMap, isPair, isScalar } from 'yaml';
import { z } from 'zod';
import { ApprovalsConfigSchema } from './approvals.js';
import { readRegularFileSync } from './bounded-read.js';
import { anchorConfigPaths } from './config-paths.js';
import { ErrorCodes, XdogError } from './errors.js';
import { LIMITS } from './limits.js';
import { configFilePath } from './paths.js';
import { yamlData } from './yaml-data.js';

/** An http(s) URL (a URL of another scheme, such as file: or javascript:, is refused). */
const HttpUrl = z.string().url().refine((url) => /^https?:\/\//i.test(url), 'must be an http:// or https:// URL');

const EnvName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name');

export const ProviderConfigSchema = z
  .object({
    type: z.string().optional(),
    api_key_env: EnvName.optional(),
    base_url: z.string().url().optional(),
    headers: z.record(z.string(), z.string()).optional(),
    timeout: z.number().positive().max(LIMITS.providerTimeoutMaxSeconds).optional(),
  })
  .strict();

const usdPerMillion = z.number().finite().nonnegative();

export const ModelConfigSchema = z
  .object({
    id: z.string().regex(/^[^/\s]+\/\S+$/, 'must be "provider/model"'),
    name: z.string().optional(),
    context_window: z.number().int().positive().optional(),
    max_prompt_tokens: z.number().int().nonnegative().optional(),
    max_output: z.number().int().positive().optional(),
    input: z.array(z.enum(['text', 'image'])).optional(),
    /** What the model produces; `image` marks a model `generate_image` may use. */
    output: z.array(z.enum(['text', 'image'])).optional(),
    reasoning: z.array(z.string()).optional(),
    tools: z.boolean().optional(),
    /** US dollars per million tokens; overrides the price table (core/model/prices.ts). Cache prices default to the input price. */
    price: z
      .object({ input: usdPerMillion, output: usdPerMillion, cache_read: usdPerMillion.optional(), cache_write: usdPerMillion.optional() })
      .strict()
      .optional(),
  })
  .strict();

const hostRule = 'must be a host name or IP address, optionally "*." + a domain (no scheme, port or path)';

/**
 * The OS sandbox of tools, MCP stdio servers and extension workers (docs/sandbox.md):
 * `mode` off | read-only | workspace-write; `network` off | on | { allow: [hosts] };
 * `writable` extra paths bound read-write in workspace-write.
 */
export const SandboxConfigSchema = z
  .object({
    mode: z.enum(['off', 'read-only', 'workspace-write']),
    network: z
      .union([
        z.enum(['off', 'on']),
        z
          .object({
            allow: z
              .array(z.string().regex(/^(\*\.)?[A-Za-z0-9][A-Za-z0-9.:-]{0,252}$/, hostRule))
              .min(1)
              .max(LIMITS.sandboxAllowHosts),
          })
          .strict(),
      ])
      .optional(),
    writable: z.array(z.string().min(1)).max(LIMITS.sandboxWritablePaths).optional(),
  })
  .strict();

export type SandboxConfig = z.infer<typeof SandboxConfigSchema>;

/** An MCP Root: a local absolute directory disclosed to one connected server. */
export const McpRootSchema = z
  .object({
    uri: z.string().regex(/^file:\/\/\/[^?#]*$/, 'must be an absolute file:/// URI without query or fragment'),
    name: z.string().min(1).optional(),
  })
  .strict();

const mcpShared = {
  /** Seconds one request may take (connect, list, call). */
  timeout: z.number().positive().max(LIMITS.mcpTimeoutMaxSeconds).optional(),
  /** Host policy: may an agent call this server's tools? Default false. */
  allow_tools: z.boolean().optional(),
  /** Host policy: this server's tools (as the server names them) the user allows under a read-only scope. */
  read_only_tools: z.array(z.string().min(1)).max(LIMITS.mcpReadOnlyTools).optional(),
  roots: z.array(McpRootSchema).max(LIMITS.mcpRoots).optional(),
  /**
   * Host policy: may this server ask for sampling (a call on the group's model, counted in the usage ledger)?
   * Absent or `allow: false`: sampling is neither declared nor answered (docs/mcp.md "Sampling").
   */
  sampling: z
    .object({
      allow: z.boolean(),
      /** The most output tokens one request may ask for; a request over it is refused (default and ceiling: LIMITS.mcpSamplingMaxTokens). */
      max_tokens: z.number().int().min(1).max(LIMITS.mcpSamplingMaxTokens).optional(),
    })
    .strict()
    .optional(),
  /**
   * Refresh this server's tools when it announces a change (`notifications/tools/list_changed`) and the group is idle;
   * claw groups only, default false (a call of a running turn that raced the refresh fails as stale).
   */
  refresh_on_change: z.boolean().optional(),
};

/** An MCP server started as a child process (argv, no shell) speaking stdio. */
export const McpStdioServerSchema = z
  .object({
    transport: z.literal('stdio'),
    command: z.string().min(1),
    args: z.array(z.string()).optional(),
    /** Extra environment for the server process; values never appear in status. */
    env: z.record(EnvName, z.string()).optional(),
    cwd: z.string().min(1).optional(),
    /** The OS sandbox the server process runs in (default: the sandbox of the kernel or group that starts it). */
    sandbox: SandboxConfigSchema.optional(),
    ...mcpShared,
  })
  .strict();

/**
 * OAuth 2.1 (authorization code + PKCE) for an HTTP server (docs/mcp.md "OAuth").
 * A client secret is never written here: `client_secret_env` names the variable.
 */
export const McpOAuthSchema = z
  .object({
    /** dynamic: RFC 7591 registration; pre-registered: `client_id` given; metadata: `client_metadata_url` is the client id. */
    registration: z.enum(['dynamic', 'pre-registered', 'metadata']).optional(),
    client_id: z.string().min(1).optional(),
    client_secret_env: EnvName.optional(),
    /** Refused: a secret never lives in the config file. */
    client_secret: z.never({ error: 'a literal client secret is not allowed in the config file; put it in an environment variable and name that in client_secret_env' }).optional(),
    client_metadata_url: HttpUrl.optional(),
    /** What to ask for; a grant wider than this is refused. */
    scopes: z.array(z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/, 'must be one scope token')).max(64).optional(),
    /** Loopback port of the redirect (http://127.0.0.1:PORT/callback); default: a free one. */
    redirect_port: z.number().int().min(1024).max(65535).optional(),
    /** Refresh an expired access token at connect without asking (default false: `xdog mcp login --refresh` does it). */
    auto_refresh: z.boolean().optional(),
  })
  .strict()
  .superRefine((oauth, context) => {
    const registration = oauth.registration ?? (oauth.client_metadata_url ? 'metadata' : oauth.client_id ? 'pre-registered' : 'dynamic');
    if (registration === 'pre-registered' && !oauth.client_id) context.addIssue({ code: 'custom', path: ['client_id'], message: 'registration pre-registered needs client_id' });
    if (registration === 'metadata' && !oauth.client_metadata_url) context.addIssue({ code: 'custom', path: ['client_metadata_url'], message: 'registration metadata needs client_metadata_url' });
  });

/** An MCP server reached over Streamable HTTP. */
export const McpHttpServerSchema = z
  .object({
    transport: z.literal('http'),
    url: HttpUrl.refine((url) => !/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(url), 'must not carry a user name or password; put credentials in headers_env')
      .refine((url) => !url.includes('#'), 'must not have a #fragment (it is never sent to the server)'),
    headers: z.record(z.string().min(1), z.string()).optional(),
    /** Header name → environment variable holding its value, read at connect. */
    headers_env: z.record(z.string().min(1), EnvName).optional(),
    allow_insecure_http: z.boolean().optional(),
    /** A PEM file of CA certificates trusted for this server's TLS instead of the system's (a private CA). */
    ca_file: z.string().min(1).optional(),
    oauth: McpOAuthSchema.optional(),
    ...mcpShared,
  })
  .strict();

/** One `mcp_servers` entry; `transport` defaults to "stdio". The mcp plugin validates programmatic input with it too. */
export const McpServerConfigSchema = z.preprocess(
  (value) =>
    value && typeof value === 'object' && !Array.isArray(value) && !('transport' in value)
      ? { transport: 'stdio', ...value }
      : value,
  z.discriminatedUnion('transport', [McpStdioServerSchema, McpHttpServerSchema]),
);

const serverIdRule = `must be 1-${LIMITS.mcpServerIdLength} ASCII letters, digits or "-", starting with a letter or digit`;

/** Server ids: bounded ASCII names, used in tool aliases. */
export const McpServerIdSchema = z
  .string()
  .regex(new RegExp(`^[A-Za-z0-9][A-Za-z0-9-]{0,${LIMITS.mcpServerIdLength - 1}}$`), serverIdRule)
  .describe(serverIdRule);

export type McpServerConfig = z.infer<typeof McpServerConfigSchema>;

const groupNameRule = 'must be 1-64 characters: lower-case letters, digits, "_" or "-", starting with a letter or digit';

/** A claw group name: used in ids, paths and the CLI. */
export const ClawGroupNameSchema = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, groupNameRule);

const positiveTokens = z.number().int().positive();

/** How a claw group compacts its sessions (docs/automation.md). */
export const ClawCompactionSchema = z
  .object({
    /** Compact before a turn once the context exceeds the window minus reserve_tokens (default true; needs a known window). */
    auto: z.boolean().optional(),
    /** Tokens kept free for the next answer (default 16384). */
    reserve_tokens: positiveTokens.optional(),
    /** Recent context kept verbatim, in estimated tokens (default 20000). */
    keep_recent_tokens: positiveTokens.optional(),
    /** The context window to compact against, for a model whose metadata declares none (or a smaller budget). */
    context_window: positiveTokens.optional(),
    /** Before compacting, let the agent save durable facts with its memory_write tool, if it has one (default true). */
    memory_flush: z.boolean().optional(),
  })
  .strict();

/** An IANA time zone name the runtime knows ("Europe/Berlin", "UTC"). */
export const TimeZoneSchema = z.string().min(1).refine(isKnownTimeZone, 'must be an IANA time zone name, such as "Europe/Berlin" or "UTC"');

function isKnownTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** A group's automatic resets: a new active session every day at a local time, and/or after a quiet spell. */
export const ClawResetSchema = z
  .object({
    /** Local time (24-hour "HH:MM", in the group's time zone) of the daily reset. */
    daily_at: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a 24-hour time "HH:MM", such as "04:00"').optional(),
    /** Minutes without a run after which the active session is replaced. */
    idle_minutes: z.number().int().positive().max(LIMITS.resetIdleMinutesMax).optional(),
  })
  .strict();

/** A spending limit: tokens (input, output and cache, summed) and/or US dollars. */
export const SpendLimitSchema = z
  .object({ tokens: z.number().int().positive().optional(), cost: z.number().finite().positive().optional() })
  .strict()
  .refine((limit) => limit.tokens !== undefined || limit.cost !== undefined, 'give tokens and/or cost');

/** A group's budgets: per day (in the group's time zone) and per run (docs/goals.md). */
export const ClawBudgetSchema = z.object({ per_day: SpendLimitSchema.optional(), per_run: SpendLimitSchema.optional() }).strict();

/** One claw group: a workspace with its model, tool policy, MCP servers and skills. */
export const ClawGroupSchema = z
  .object({
    /** The directory the group's tools work in ("~/" is the home directory). */
    workspace: z.string().min(1),
    /** The model new sessions start with ("provider/model"); there is no built-in default. */
    model: z.string().min(1),
    /** Reasoning effort new sessions start with. */
    thinking: z.string().min(1).optional(),
    /** Tools the group's agents get, by name; `[]` is none; absent is every ordinary tool. */
    enabled_tools: z.array(z.string().min(1)).optional(),
    /** Capabilities the group's agents get (today: `eyes`; docs/eyes.md). With `enabled_tools` set, list their tools there too. */
    capabilities: z.array(z.literal('eyes')).optional(),
    /** Ids from `mcp_servers` this group may connect. */
    mcp_servers: z.array(McpServerIdSchema).optional(),
    /** Skill slugs new sessions start with. */
    skills: z.array(z.string().min(1)).optional(),
    system_prompt: z.string().optional(),
    /** IANA time zone of the group's daily reset and the default of its cron jobs; default: the system's. */
    timezone: TimeZoneSchema.optional(),
    /** Automatic session resets; each is off unless set (docs/automation.md). */
    reset: ClawResetSchema.optional(),
    /** When and how sessions are compacted (docs/automation.md). */
    compaction: ClawCompactionSchema.optional(),
    /** Tool approvals for this group's agents (docs/approvals.md). */
    approvals: ApprovalsConfigSchema.optional(),
    /** Spending limits checked before each model call (docs/goals.md). */
    budget: ClawBudgetSchema.optional(),
    /** The OS sandbox of the group's tools, MCP servers and extensions (default: workspace-write, network off, when a channel feeds the group; else off). */
    sandbox: SandboxConfigSchema.optional(),
  })
  .strict();

/** Where claw keeps its store. */
export const ClawStoreSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('sqlite'), path: z.string().min(1).optional() }).strict(),
  /** A PostgreSQL database; its URL (with the password) comes from the environment variable `url_env` names (docs/claw-store.md). */
  z.object({ type: z.literal('postgres'), url_env: EnvName }).strict(),
]);

const channelIdRule = 'must be 1-64 characters: lower-case letters, digits, "_" or "-", starting with a letter or digit';

/** One channel: where people reach a group from a chat app (docs/channels.md). */
export const ClawChannelSchema = z
  .object({
    /** The channel type a plugin provides (built in: webhook, irc, wechat). */
    type: z.string().min(1),
    /** The group its messages go to. */
    group: ClawGroupNameSchema,
    /** Senders whose messages run; anyone else gets nothing. `"*"` allows every sender. */
    allow_from: z.array(z.string().min(1)).min(1),
    /** The channel type's own settings (validated by that type when the gateway starts). */
    settings: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

export type ClawChannelConfig = z.infer<typeof ClawChannelSchema>;

/** The dashboard the gateway serves as a service, started and stopped with it (docs/web.md). */
export const ClawWebSchema = z
  .object({
    /** Port to listen on (default 7447; 0: any free one). */
    port: z.number().int().min(0).max(65535).optional(),
    /** Address to listen on (default 127.0.0.1); another one is reachable from other machines and `xdog claw status` warns. */
    host: z.string().min(1).max(255).optional(),
  })
  .strict();

export const ClawConfigSchema = z
  .object({
    store: ClawStoreSchema.optional(),
    /** Seconds a group lease lasts without renewal; owners renew every third of it (docs/claw.md, several workers). */
    lease_seconds: z.number().int().min(LIMITS.clawLeaseSecondsMin).max(LIMITS.clawLeaseSecondsMax).optional(),
    /** The group `xdog claw send` and clients use when none is named (default: the only group, else "main"). */
    default_group: ClawGroupNameSchema.optional(),
    groups: z
      .record(ClawGroupNameSchema, ClawGroupSchema, {
        error: (issue) => (issue.code === 'invalid_key' ? `group name ${groupNameRule}` : undefined),
      })
      .optional(),
    /** The one model `generate_image` uses, as provider/model (docs/images.md); the agent's model cannot change it. */
    image_model: z.string().min(1).optional(),
    /** The gateway serves the web dashboard itself (docs/web.md); without it `xdog claw web` does. */
    web: ClawWebSchema.optional(),
    /** Chat channels by id (docs/channels.md). */
    channels: z
      .record(z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, channelIdRule), ClawChannelSchema, {
        error: (issue) => (issue.code === 'invalid_key' ? `channel id ${channelIdRule}` : undefined),
      })
      .optional(),
  })
  .strict();

export type ClawConfig = z.infer<typeof ClawConfigSchema>;
export type ClawGroupConfig = z.infer<typeof ClawGroupSchema>;

/** Where traces and metrics go (docs/observability.md); without this section nothing is recorded or loaded. */
export const TelemetryConfigSchema = z
  .object({
    /** `otlp`: OTLP to `endpoint` over `protocol`; `console`: spans printed to stderr. */
    exporter: z.enum(['otlp', 'console']),
    /** The collector's base URL (over HTTP the exporters append /v1/traces and /v1/metrics); default http://127.0.0.1:4318, or :4317 for grpc. */
    endpoint: HttpUrl.optional(),
    /** The OTLP wire (the official exporters): http/json (default), http/protobuf or grpc. */
    protocol: z.enum(['http/json', 'http/protobuf', 'grpc']).optional(),
    /** Request headers whose values are read from environment variables (a collector's API key). */
    headers_env: z.record(z.string().regex(/^[A-Za-z0-9-]{1,64}$/, 'must be an HTTP header name'), EnvName).optional(),
    /** `service.name` of the resource (default "xdog"). */
    service_name: z.string().min(1).max(128).optional(),
    /** Record message and tool contents (bounded, credentials redacted). Default false. */
    capture_content: z.boolean().optional(),
    /** Milliseconds between span batches and metric exports (default 2000). */
    export_interval_ms: z.number().int().min(100).max(600_000).optional(),
    /** A loopback `/metrics` endpoint in the Prometheus text format. */
    prometheus: z.object({ port: z.number().int().min(1).max(65535) }).strict().optional(),
  })
  .strict();

export type TelemetryConfig = z.infer<typeof TelemetryConfigSchema>;

export const ConfigSchema = z
  .object({
    model: z.string().optional(),
    providers: z.record(z.string(), ProviderConfigSchema).optional(),
    models: z.array(ModelConfigSchema).optional(),
    faux: z.object({ script: z.string() }).strict().optional(),
    /** Host skill directories by name (a leading "~/" is the home directory; relative paths resolve against the working directory, or a claw group's workspace). */
    skills: z
      .object({ dirs: z.record(z.string().regex(/^[A-Za-z0-9][\w.-]{0,63}$/, 'must be a name: letters, digits, ".", "_" or "-"'), z.string().min(1)).optional() })
      .strict()
      .optional(),
    /** The web_search tool's backend; without it the tool is absent. */
    web_search: z
      .discriminatedUnion('backend', [
        z.object({ backend: z.literal('searxng'), url: z.string().url(), api_key_env: EnvName.optional() }).strict(),
        // Brave and Tavily need a key; `url` overrides the vendor's endpoint (a proxy, a test stand-in).
        z.object({ backend: z.enum(['brave', 'tavily']), url: z.string().url().optional(), api_key_env: EnvName }).strict(),
      ])
      .optional(),
    /** The embed tool's provider (openai, google, or a configured OpenAI-compatible providers.<name>) and model; without it the tool is absent. */
    embed: z.object({ provider: z.string().min(1), model: z.string().min(1) }).strict().optional(),
    /** Where `xdog mcp login` keeps MCP OAuth credentials; absent: nothing is saved or loaded. */
    mcp_credential_backend: z.enum(['file', 'secret-service']).optional(),
    mcp_servers: z
      .record(McpServerIdSchema, McpServerConfigSchema, {
        error: (issue) => (issue.code === 'invalid_key' ? `server id ${serverIdRule}` : undefined),
      })
      .optional(),
    /** The claw gateway: store and groups (docs/claw.md). */
    claw: ClawConfigSchema.optional(),
    /** Enabled extensions, by package name (docs/extensions.md); installed but unlisted ones stay inert. */
    extensions: z.array(z.string().regex(/^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/, 'must be an npm package name')).optional(),
    /** A folder of extensions: an enabled id is also looked for in `<extension_dir>/<id>/` (relative: from the config file's folder). */
    extension_dir: z.string().min(1).optional(),
    /** Settings per extension id, sent to its worker over the private channel (never argv). */
    extension_settings: z.record(z.string(), z.unknown()).optional(),
    /** Extension tools (their `ext_` aliases) the model may call; every other extension tool is blocked. */
    extension_allow_tools: z.array(z.string().regex(/^ext_/, 'must be an ext_ tool alias')).optional(),
    /** Milliseconds each extension callback (and a provider stream between events) may take before the extension is quarantined. */
    extension_timeout_ms: z.number().int().min(LIMITS.extensionCallbackTimeoutMinMs).max(LIMITS.extensionCallbackTimeoutMaxMs).optional(),
    /** The OS sandbox of tools, MCP servers and extensions outside claw groups (xdog agent chat; --sandbox overrides the mode); default off. */
    sandbox: SandboxConfigSchema.optional(),
    /** The OS sandbox of an extension's worker, per extension id (default: the kernel's or group's sandbox). */
    extension_sandbox: z.record(z.string(), SandboxConfigSchema).optional(),
    /** The capabilities `xdog agent chat` and claw groups open, by name (docs/capabilities.md); absent: every installed one that starts no daemon (Flow). */
    capabilities: z.array(z.string().regex(/^[a-z][a-z0-9_-]{0,63}$/, 'must be a capability name: lower-case letters, digits, "_" or "-"')).optional(),
    /** Eyes, the shared observation daemon (docs/eyes.md): host policy for the pages it may open. */
    eyes: z
      .object({
        /** Hosts (besides loopback) pages may be loaded from, e.g. "example.com" or "*.example.com". */
        allow_hosts: z.array(z.string().regex(/^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:\d{1,5})?$/, 'must be a host name (optionally "*." in front, ":port" after)')).optional(),
      })
      .strict()
      .optional(),
    /** Named child-agent settings for `--preset` and the agent tool's `preset` (docs/children.md); checked by the children plugin, an invalid catalog fails. */
    child_presets: z.record(z.string(), z.unknown()).optional(),
    /** Traces and metrics (docs/observability.md). */
    telemetry: TelemetryConfigSchema.optional(),
    /** Tool approvals for `xdog agent chat` (docs/approvals.md); claw groups set their own. */
    approvals: ApprovalsConfigSchema.optional(),
  })
  .strict();

export type XdogConfig = z.infer<typeof ConfigSchema>;

export interface LoadedConfig {
  config: XdogConfig;
  /** The file it came from, or undefined when none exists. */
  file?: string;
}

/**
 * Reads and validates the config file (`explicit`, else XDOG_CONFIG, else the
 * default path). A missing default file is an empty config; a missing file
 * that was named explicitly is an error. Relative file paths in it are
 * resolved against its folder (config-paths.ts).
 */
/** The group a request without one goes to: claw.default_group, else the only group, else "main" when configured. */
export function defaultGroupOf(config: XdogConfig): string | undefined {
  const groups = Object.keys(config.claw?.groups ?? {});
  if (config.claw?.default_group) return config.claw.default_group;
  if (groups.length === 1) return groups[0];
  return groups.includes('main') ? 'main' : undefined;
}

export function loadConfig(explicit?: string): LoadedConfig {
  const named = explicit ?? process.env.XDOG_CONFIG;
  const file = configFilePath(explicit);
  let text: string;
  try {
    text = readRegularFileSync(file, { maxBytes: LIMITS.configFileBytes, what: 'config file', code: ErrorCodes.CONFIG_INVALID }).toString('utf8');
  } catch (error) {
    if (XdogError.is(error)) throw error;
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && !named) return { config: {} };
    throw new XdogError(ErrorCodes.CONFIG_NOT_FOUND, `cannot read config file ${file}: ${(error as Error).message}`, {
      hint: named ? 'check the path given by --config or XDOG_CONFIG' : undefined,
    });
  }
  // File paths in it mean files next to it, wherever the command runs.
  return { config: anchorConfigPaths(parseConfig(text, file), path.dirname(path.resolve(file))), file };
}

/** Parses and validates config text; errors name the file, line and key path. */
export function parseConfig(text: string, file = '<config>'): XdogConfig {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  if (doc.errors.length > 0) {
    const first = doc.errors[0]!;
    const line = lineCounter.linePos(first.pos[0]).line;
    throw new XdogError(ErrorCodes.CONFIG_INVALID, `${file}:${line}: YAML syntax error: ${first.message.split('\n')[0]}`, {
      hint: 'fix the YAML syntax at that line',
    });
  }
  const converted = yamlData(doc);
  if ('problem' in converted) {
    const { path: keyPath, offset, message, hint } = converted.problem;
    const name = keyPath.length ? `${keyPath.join('.')}: ` : '';
    throw new XdogError(ErrorCodes.CONFIG_INVALID, `invalid config: ${file}:${lineCounter.linePos(offset).line}: ${name}${message}`, { hint });
  }
  const result = ConfigSchema.safeParse(converted.data);
  if (result.success) return result.data;

  const lineOf = (keyPath: PropertyKey[]): number | undefined => {
    const node = doc.getIn(keyPath as unknown[], true) as { range?: [number, number, number] } | undefined;
    const offset = node?.range?.[0] ?? keyOffset(doc.contents, keyPath);
    return offset === undefined ? undefined : lineCounter.linePos(offset).line;
  };
  const problems = result.error.issues.map((issue) => {
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : [undefined];
    return keys.map((key) => {
      const keyPath = key === undefined ? issue.path : [...issue.path, key];
      const line = lineOf(keyPath) ?? lineOf(issue.path);
      const where = `${file}${line ? `:${line}` : ''}`;
      const name = keyPath.map(String).join('.') || '(top level)';
      const message = issue.code === 'unrecognized_keys' ? 'unknown key' : issue.message;
      return `${where}: ${name}: ${message}`;
    });
  });
  const lines = problems.flat();
  throw new XdogError(ErrorCodes.CONFIG_INVALID, `invalid config: ${lines.join('; ')}`, {
    hint: 'fix the keys named above; docs/config.md lists every key',
    details: { problems: lines },
  });
}

/** Offset of a key in the YAML tree, for keys whose value node is absent (null). */
function keyOffset(node: unknown, keyPath: PropertyKey[]): number | undefined {
  let current = node;
  let offset: number | undefined;
  for (const key of keyPath) {
    if (!isMap(current)) return offset;
    const pair = current.items.find((item) => isPair(item) && isScalar(item.key) && item.key.value === key);
    if (!pair || !isScalar(pair.key)) return offset;
    offset = pair.key.range?.[0];
    current = pair.value;
  }
  return offset;
}
