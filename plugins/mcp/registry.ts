/**
 * McpRegistry: the host-owned set of configured MCP servers. `register` is
 * inert (no process, no socket); `connect`, `refresh`, `disconnect`,
 * `status`, `tools` and `close` are the whole lifecycle. Nothing starts,
 * reconnects or replays on its own. Tool proxies bind to an Agent (never a
 * ToolRepo) through `toolSource()` / `bindMcpRegistry()`.
 */
import { ErrorCodes, LIMITS, XdogError, type AgentTool, type AgentToolResult, type RemoteToolSource, type SandboxConfig, type Telemetry } from '../../core/index.js';
import { toolAlias } from './aliases.js';
import type { McpCredentialStore } from './credential-store.js';
import type { McpClientHandlers } from './client-requests.js';
import type { McpConnection, McpEra, RequestOptions } from './connection.js';
import {
  CATALOG_METHODS,
  checkPromptArguments,
  completionResult,
  parseCatalog,
  promptDocument,
  resourceDocument,
  type McpCatalogKind,
  type McpCompletion,
  type McpDocument,
  type McpPromptEntry,
  type McpResourceEntry,
  type McpTemplateEntry,
} from './documents.js';
import { headerMirrors, mirroredHeaders, type HeaderMirror } from './header-mirrors.js';
import { compileSchema, schemaDialect, type CompiledSchema } from './schema.js';
import { parseServerConfig, type McpServerConfig } from './server-config.js';
import { toAgentResult, type McpToolDetails } from './tool-result.js';

/** Where a server is in its lifecycle. */
export type McpServerState = 'registered' | 'connecting' | 'connected' | 'failed' | 'disconnected';

/** What `status()` reports. Never contains environment or header values. */
export interface McpServerStatus {
  id: string;
  transport: 'stdio' | 'http';
  state: McpServerState;
  allowTools: boolean;
  /** stdio: the command and arguments; http: the URL's origin and path. */
  target: string;
  /** Names of configured environment variables / headers (values are never shown). */
  envNames: string[];
  headerNames: string[];
  roots: number;
  server?: { name: string; version: string };
  protocolVersion?: string;
  /** `modern`: the 2026-07-28 protocol (server/discover); `legacy`: the initialize handshake, with why the probe chose it. */
  era?: McpEra;
  legacyReason?: string;
  capabilities?: string[];
  tools: number;
  /** Set when a list-changed notice arrived since the last refresh. */
  stale: boolean;
  /** Tools rejected at discovery, and why. */
  diagnostics: string[];
  /** Why the last connection failed or ended. */
  error?: string;
  /** stdio: the server's process group id while connected. */
  pid?: number;
}

/** One discovered, accepted tool. */
export interface McpToolInfo {
  server: string;
  /** The server's own tool name. */
  name: string;
  /** The name an agent and its model see. */
  alias: string;
  title?: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  /** Server hints; they never grant anything. */
  annotations?: Record<string, unknown>;
}

/** How a completion names what it completes. */
export interface McpCompletionRequest {
  /** `prompt` completes a prompt argument; `resource` a resource or template URI argument. */
  kind: 'prompt' | 'resource';
  /** Prompt name, or resource URI / URI template (opaque, never fetched). */
  name: string;
  argument: string;
  prefix: string;
  /** Values of other arguments already chosen. */
  context?: Record<string, string>;
}

interface ToolSpec extends McpToolInfo {
  input: CompiledSchema;
  output?: CompiledSchema;
  /** Arguments mirrored into `Mcp-Param-*` headers (HTTP only). */
  mirrors: readonly HeaderMirror[];
}

interface ServerEntry {
  id: string;
  config: McpServerConfig;
  state: McpServerState;
  connection?: McpConnection;
  tools: readonly ToolSpec[];
  diagnostics: string[];
  stale: boolean;
  error?: string;
  /** Bumped by connect and disconnect, so a connect can tell it was overtaken. */
  attempt: number;
  /** Completion requests in flight (running + waiting) and the end of their queue. */
  completions: { pending: number; tail: Promise<void> };
}

export interface McpRegistryOptions {
  /** Directory stdio servers start in (a server's `cwd` is relative to it). Default: process.cwd(). */
  cwd?: string;
  /** Environment that `headers_env` names are read from. Default: process.env. */
  env?: NodeJS.ProcessEnv;
  /** The telemetry requests are traced with (asked per request; undefined: not traced). */
  telemetry?: () => Telemetry | undefined;
  /** Where OAuth logins are kept (`mcp_credential_backend`); without it a server with `oauth` cannot connect. */
  credentials?: McpCredentialStore;
  /** The OS sandbox of stdio servers whose entry sets none (the kernel's or group's `sandbox:`; docs/sandbox.md). */
  sandbox?: SandboxConfig;
  /** How servers' elicitation and sampling requests are answered (absent: elicitation declined, sampling refused). */
  handlers?: McpHandlersOption;
}

/** Handlers for every server, or chosen per server at its connect (a host whose policy differs by server). */
export type McpHandlersOption = McpClientHandlers | ((server: string) => McpClientHandlers | undefined);

/** A notification a connected server sent (list changes, resource updates), as the host hears it. */
export interface McpServerNotice {
  server: string;
  method: string;
  params?: Record<string, unknown>;
}

/** An MCP proxy tool, carrying the server and tool it stands for. */
export interface McpProxyTool extends AgentTool<Record<string, unknown>, McpToolDetails> {
  readonly mcp: { server: string; tool: string };
  /** Validates arguments against the advertised input schema; throws INVALID_ARGUMENT. */
  validateArguments(args: unknown): void;
}

export class McpRegistry implements AsyncDisposable {
  readonly #servers = new Map<string, ServerEntry>();
  readonly #listeners = new Set<() => void>();
  readonly #noticeListeners = new Set<(notice: McpServerNotice) => void>();
  readonly #cwd: string;
  readonly #env: NodeJS.ProcessEnv;
  readonly #telemetry?: () => Telemetry | undefined;
  readonly #credentials?: McpCredentialStore;
  readonly #sandbox?: SandboxConfig;
  #handlers?: McpHandlersOption;
  #proxies: McpProxyTool[] = [];
  #closed = false;

  constructor(options: McpRegistryOptions = {}) {
    this.#cwd = options.cwd ?? process.cwd();
    this.#env = options.env ?? process.env;
    this.#telemetry = options.telemetry;
    this.#credentials = options.credentials;
    this.#sandbox = options.sandbox;
    this.#handlers = options.handlers;
  }

  /** A registry with every server of a config file's `mcp_servers` registered (inert). */
  static fromConfig(servers: Record<string, unknown> | undefined, options: McpRegistryOptions = {}): McpRegistry {
    const registry = new McpRegistry(options);
    for (const [id, config] of Object.entries(servers ?? {})) registry.register(id, config);
    return registry;
  }

  /** Declares a server. Validates its config; starts nothing. */
  register(id: string, config: unknown): void {
    this.#assertOpen();
    const parsed = parseServerConfig(id, config);
    if (this.#servers.has(id)) {
      throw new XdogError(ErrorCodes.CONFLICT, `MCP server "${id}" is already registered`, { hint: 'unregister it first or choose another id' });
    }
    this.#servers.set(id, {
      id,
      config: parsed,
      state: 'registered',
      tools: [],
      diagnostics: [],
      stale: false,
      attempt: 0,
      completions: { pending: 0, tail: Promise.resolve() },
    });
  }

  /** Forgets a server that is not connected. */
  unregister(id: string): void {
    const entry = this.#entry(id);
    if (entry.connection) throw new XdogError(ErrorCodes.INVALID_STATE, `MCP server "${id}" is connected`, { hint: 'disconnect it first' });
    this.#servers.delete(id);
  }

  /** Registered server ids, in registration order. */
  servers(): string[] {
    return [...this.#servers.keys()];
  }

  /**
   * How servers' elicitation and sampling requests are answered from the next
   * connect on (a host that learns late whether a person is present, like the
   * chat on a TTY). Connections already open keep what they had.
   */
  setHandlers(handlers: McpHandlersOption | undefined): void {
    this.#handlers = handlers;
  }

  /** Starts (stdio) or opens (http) the server, runs the handshake and discovers its tools. */
  async connect(id: string, options: RequestOptions = {}): Promise<McpServerStatus> {
    this.#assertOpen();
    const entry = this.#entry(id);
    if (entry.state === 'connecting' || entry.state === 'connected') {
      throw new XdogError(ErrorCodes.INVALID_STATE, `MCP server "${id}" is already ${entry.state}`, { hint: 'disconnect it first to reconnect' });
    }
    entry.state = 'connecting';
    entry.error = undefined;
    entry.diagnostics = [];
    const attempt = ++entry.attempt;
    let bearer: string | undefined;
    try {
      // Loaded only for a server with oauth (it brings the SDK's auth client).
      bearer = entry.config.transport === 'http' && entry.config.oauth ? await (await import('./oauth.js')).accessTokenFor(id, entry.config, this.#credentials) : undefined;
    } catch (error) {
      if (entry.attempt === attempt) {
        entry.state = 'failed';
        entry.error = (error as Error).message;
      }
      throw error;
    }
    const McpConnection = await this.#connectionClass(entry, attempt);
    const handlers = typeof this.#handlers === 'function' ? this.#handlers(id) : this.#handlers;
    const connection = McpConnection.create({
      id,
      config: entry.config,
      cwd: this.#cwd,
      env: this.#env,
      ...(bearer === undefined ? {} : { bearer }),
      sandbox: this.#sandbox,
      ...(handlers ? { handlers } : {}),
      onLost: (reason) => this.#lost(entry, connection, reason),
      ...(this.#telemetry ? { telemetry: this.#telemetry } : {}),
    });
    // Visible to disconnect()/close() while the handshake runs, so they can stop it.
    entry.connection = connection;
    try {
      await connection.open();
      this.#watchListChanges(entry, connection);
      await this.#discover(entry, options);
    } catch (error) {
      await connection.close().catch(() => undefined);
      if (entry.attempt !== attempt) {
        throw new XdogError(ErrorCodes.CLOSED, `MCP server "${id}" was disconnected while connecting`, { cause: error });
      }
      entry.connection = undefined;
      entry.tools = [];
      entry.state = 'failed';
      entry.error = (error as Error).message;
      this.#changed();
      throw error;
    }
    entry.state = 'connected';
    this.#changed();
    return this.status(id)[0]!;
  }

  /**
   * The connection class, loaded with the first connection (it brings the MCP
   * SDK, which commands that never connect should not pay for). A disconnect
   * while it loads ends this connect, as one during the handshake does.
   */
  async #connectionClass(entry: ServerEntry, attempt: number): Promise<typeof McpConnection> {
    let loaded: typeof import('./connection.js');
    try {
      loaded = await import('./connection.js');
    } catch (error) {
      if (entry.attempt === attempt) {
        entry.state = 'failed';
        entry.error = (error as Error).message;
      }
      throw error;
    }
    if (entry.attempt !== attempt) throw new XdogError(ErrorCodes.CLOSED, `MCP server "${entry.id}" was disconnected while connecting`);
    return loaded.McpConnection;
  }

  /** Lists the server's tools again; proxies made before the refresh stop working. */
  async refresh(id: string, options: RequestOptions = {}): Promise<McpServerStatus> {
    const entry = this.#connected(id);
    await this.#discover(entry, options);
    this.#changed();
    return this.status(id)[0]!;
  }

  /** Ends the connection; a stdio server's process group is terminated and reaped. */
  async disconnect(id: string): Promise<void> {
    const entry = this.#entry(id);
    entry.attempt++; // a connect still in its handshake gives up
    const connection = entry.connection;
    entry.connection = undefined;
    entry.tools = [];
    if (entry.state !== 'registered') entry.state = 'disconnected';
    if (connection) {
      await connection.close();
      this.#changed();
    }
  }

  /** Status of one server or all. */
  status(id?: string): McpServerStatus[] {
    const entries = id === undefined ? [...this.#servers.values()] : [this.#entry(id)];
    return entries.map((entry) => this.#statusOf(entry));
  }

  /** Accepted tools of one connected server, or of all. */
  tools(id?: string): McpToolInfo[] {
    const entries = id === undefined ? [...this.#servers.values()] : [this.#entry(id)];
    return entries.flatMap((entry) => entry.tools.map(publicInfo));
  }

  /** True when the host allows agents to call this server's tools (`allow_tools: true`). */
  allowsTools(id: string): boolean {
    return this.#entry(id).config.allow_tools === true;
  }

  /**
   * Calls a tool by its server-side name, as an explicit host action (the CLI
   * `mcp call`). Agents go through proxies instead, which also check allow_tools.
   */
  async callTool(id: string, name: string, args: Record<string, unknown>, options: RequestOptions = {}): Promise<AgentToolResult<McpToolDetails>> {
    const entry = this.#connected(id);
    const spec = entry.tools.find((tool) => tool.name === name);
    if (!spec) {
      throw new XdogError(ErrorCodes.NOT_FOUND, `MCP server "${id}" has no usable tool "${name}"`, {
        hint: `its tools: ${entry.tools.map((tool) => tool.name).join(', ') || 'none'}${entry.diagnostics.length ? '; see status diagnostics for rejected tools' : ''}`,
      });
    }
    return this.#call(entry, spec, args, options);
  }

  /** Proxy tools of every connected server, under their aliases. */
  agentTools(): McpProxyTool[] {
    return [...this.#proxies];
  }

  /** The source an Agent takes as its remote tools. */
  toolSource(): RemoteToolSource {
    return {
      tools: () => this.agentTools(),
      onChange: (listener) => this.onChange(listener),
    };
  }

  /**
   * An explicit grant: a tool source with only the named aliases (the seed's
   * `McpRegistry.from_tools` manifest), e.g. for a child agent. It shares this
   * registry's connections but cannot connect, refresh or disconnect anything,
   * and allow_tools still applies. Every alias must exist when granted.
   */
  grant(aliases: readonly string[]): RemoteToolSource {
    const known = new Set(this.#proxies.map((tool) => tool.name));
    const missing = aliases.filter((alias) => !known.has(alias));
    if (missing.length > 0) {
      throw new XdogError(ErrorCodes.NOT_FOUND, `cannot grant unknown MCP tool(s) ${missing.join(', ')}`, {
        hint: `connected tools: ${[...known].join(', ') || 'none'}`,
      });
    }
    const granted = new Set(aliases);
    return {
      tools: () => this.#proxies.filter((tool) => granted.has(tool.name)),
      onChange: (listener) => this.onChange(listener),
    };
  }

  /** Listens for tool-set changes (connect, refresh, disconnect, loss); returns a disposer. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /**
   * Listens for the notifications connected servers send (`notifications/tools/list_changed`,
   * `notifications/resources/updated`, ...); returns a disposer. A listener must not throw.
   * Hearing one changes nothing by itself (the server is only marked stale): the host decides.
   */
  onNotice(listener: (notice: McpServerNotice) => void): () => void {
    this.#noticeListeners.add(listener);
    return () => void this.#noticeListeners.delete(listener);
  }

  /**
   * Asks the server for `notifications/resources/updated` about `uri` (`resources/subscribe`);
   * heard through `onNotice`. Needs the server's `resources.subscribe` capability.
   */
  async subscribeResource(id: string, uri: string, options: RequestOptions = {}): Promise<void> {
    const entry = this.#connected(id);
    const resources = entry.connection!.capabilities.resources as { subscribe?: unknown } | undefined;
    if (resources?.subscribe !== true) {
      throw new XdogError(ErrorCodes.MCP_FAILED, `MCP server "${id}" does not offer resource subscriptions`, { hint: 'read the resource again instead (mcp.read)' });
    }
    await entry.connection!.request('resources/subscribe', { uri }, options);
  }

  /** Ends a `subscribeResource`. */
  async unsubscribeResource(id: string, uri: string, options: RequestOptions = {}): Promise<void> {
    await this.#connected(id).connection!.request('resources/unsubscribe', { uri }, options);
  }

  /**
   * True when `tool` is one of this registry's own proxies and the user listed
   * it in its server's `read_only_tools` (what a read-only scope may call).
   * The server's own annotations (readOnlyHint) never count.
   */
  allowedWhenReadOnly(tool: AgentTool): boolean {
    const proxy = tool as McpProxyTool;
    if (!this.#proxies.includes(proxy)) return false;
    const entry = this.#servers.get(proxy.mcp.server);
    return entry?.config.read_only_tools?.includes(proxy.mcp.tool) === true;
  }

  /** Why a proxy call must not run, or undefined when it may: the host's allow_tools policy. */
  blockReason(tool: AgentTool): string | undefined {
    const mcp = (tool as Partial<McpProxyTool>).mcp;
    return mcp ? this.#policyBlock(mcp.server) : undefined;
  }

  #policyBlock(server: string): string | undefined {
    const entry = this.#servers.get(server);
    if (!entry) return `MCP server "${server}" is no longer registered`;
    if (entry.config.allow_tools !== true) {
      return `MCP server "${server}" is not allowed to run tools: set allow_tools: true for it in mcp_servers (host policy)`;
    }
    return undefined;
  }

  /** A paginated, validated, frozen catalog of resources, resource templates or prompts. */
  async catalog(id: string, kind: 'resource', options?: RequestOptions): Promise<readonly McpResourceEntry[]>;
  async catalog(id: string, kind: 'template', options?: RequestOptions): Promise<readonly McpTemplateEntry[]>;
  async catalog(id: string, kind: 'prompt', options?: RequestOptions): Promise<readonly McpPromptEntry[]>;
  async catalog(id: string, kind: McpCatalogKind, options: RequestOptions = {}): Promise<readonly unknown[]> {
    const entry = this.#connected(id);
    const { method, key, capability } = CATALOG_METHODS[kind];
    this.#requireCapability(entry, capability);
    return parseCatalog(kind, await entry.connection!.paginate(method, key, options), id);
  }

  /** Reads one resource as a frozen document; links inside are never followed. */
  async resource(id: string, uri: string, options: RequestOptions = {}): Promise<McpDocument> {
    const entry = this.#connected(id);
    this.#requireCapability(entry, 'resources');
    return resourceDocument(id, uri, await entry.connection!.request('resources/read', { uri }, options));
  }

  /** Gets one prompt as a frozen document; arguments are checked against the catalog first. */
  async prompt(id: string, name: string, args: Record<string, unknown> = {}, options: RequestOptions = {}): Promise<McpDocument> {
    const prompts = await this.catalog(id, 'prompt', options);
    const prompt = prompts.find((entry) => entry.name === name);
    if (!prompt) {
      throw new XdogError(ErrorCodes.NOT_FOUND, `MCP server "${id}" has no prompt "${name}"`, {
        hint: `its prompts: ${prompts.map((entry) => entry.name).join(', ') || 'none'}`,
      });
    }
    const checked = checkPromptArguments(prompt, args, id);
    const result = await this.#connected(id).connection!.request('prompts/get', { name, arguments: checked }, options);
    return promptDocument(id, name, result);
  }

  /**
   * Asks the server to complete an argument of a prompt or resource (template).
   * Per server one completion runs and one waits; a third is refused.
   */
  async complete(id: string, request: McpCompletionRequest, options: RequestOptions = {}): Promise<McpCompletion> {
    const entry = this.#connected(id);
    this.#requireCapability(entry, 'completions');
    if (request.context && Object.hasOwn(request.context, request.argument)) {
      throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `completion context may not contain the argument being completed ("${request.argument}")`);
    }
    if (entry.completions.pending >= LIMITS.mcpCompletionsPending) {
      throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `MCP server "${id}" already has a completion running and one waiting`, {
        hint: 'wait for them, or cancel one, before asking again',
      });
    }
    entry.completions.pending++;
    const previous = entry.completions.tail;
    const run = previous.then(() => this.#completeNow(entry, request, options));
    entry.completions.tail = run.then(
      () => undefined,
      () => undefined,
    );
    try {
      return await run;
    } finally {
      entry.completions.pending--;
    }
  }

  async #completeNow(entry: ServerEntry, request: McpCompletionRequest, options: RequestOptions): Promise<McpCompletion> {
    const id = entry.id;
    const ref = request.kind === 'prompt' ? { type: 'ref/prompt', name: request.name } : { type: 'ref/resource', uri: request.name };
    const result = await this.#connected(id).connection!.request(
      'completion/complete',
      {
        ref,
        argument: { name: request.argument, value: request.prefix },
        ...(request.context ? { context: { arguments: request.context } } : {}),
      },
      options,
    );
    return completionResult(id, result);
  }

  /** Disconnects every server; the registry accepts nothing afterwards. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.allSettled([...this.#servers.keys()].map((id) => this.disconnect(id)));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  async #discover(entry: ServerEntry, options: RequestOptions): Promise<void> {
    const connection = entry.connection!;
    const capabilities = connection.capabilities;
    const accepted: ToolSpec[] = [];
    const diagnostics: string[] = [];
    if (capabilities.tools) {
      const raw = await connection.paginate('tools/list', 'tools', options);
      const aliases = new Set<string>();
      for (const [index, item] of raw.entries()) {
        try {
          const spec = toolSpec(entry.id, item, index, entry.config.transport === 'http');
          if (aliases.has(spec.alias)) throw new Error(`duplicate tool name or alias "${spec.alias}"`);
          aliases.add(spec.alias);
          accepted.push(spec);
        } catch (error) {
          const name = (item as { name?: unknown })?.name;
          diagnostics.push(`tool ${typeof name === 'string' ? JSON.stringify(name) : `#${index}`} rejected: ${(error as Error).message}`);
        }
      }
    }
    entry.tools = Object.freeze(accepted);
    entry.diagnostics = diagnostics;
    entry.stale = false;
  }

  #watchListChanges(entry: ServerEntry, connection: McpConnection): void {
    // Passive marking only: a list-changed notice never triggers a refresh by itself.
    connection.onNotification((method, params) => {
      if (entry.connection !== connection) return;
      if (method.endsWith('/list_changed')) entry.stale = true;
      const notice: McpServerNotice = { server: entry.id, method, ...(params ? { params } : {}) };
      for (const listener of [...this.#noticeListeners]) listener(notice);
    });
  }

  #lost(entry: ServerEntry, connection: McpConnection, reason: string): void {
    if (entry.connection !== connection) return;
    entry.connection = undefined;
    entry.tools = [];
    entry.state = 'failed';
    entry.error = reason;
    void connection.close().catch(() => undefined);
    this.#changed();
  }

  #proxy(entry: ServerEntry, spec: ToolSpec): McpProxyTool {
    return Object.freeze({
      name: spec.alias,
      description: spec.description || `MCP tool ${spec.name} on server ${entry.id}`,
      parameters: modelParameters(spec.inputSchema),
      mcp: Object.freeze({ server: entry.id, tool: spec.name }),
      validateArguments: (args: unknown) => spec.input.check(args, `arguments of ${spec.alias}`),
      execute: async (args: Record<string, unknown>, context: { signal: AbortSignal }) => {
        const reason = this.#policyBlock(entry.id);
        if (reason) throw new XdogError(ErrorCodes.TOOL_FAILED, reason);
        // A stale proxy never borrows a refreshed spec or a replacement connection.
        if (!entry.tools.includes(spec) || this.#servers.get(entry.id) !== entry) {
          throw new XdogError(ErrorCodes.MCP_FAILED, `MCP tool ${spec.alias} is stale: its server was disconnected or refreshed`, {
            hint: 'the agent picks up the current tools on its next turn',
          });
        }
        return this.#call(entry, spec, args, { signal: context.signal });
      },
    }) as McpProxyTool;
  }

  async #call(entry: ServerEntry, spec: ToolSpec, args: Record<string, unknown>, options: RequestOptions): Promise<AgentToolResult<McpToolDetails>> {
    // Validated again right before the call: a hook may have rewritten them.
    spec.input.check(args, `arguments of ${spec.alias}`);
    const connection = entry.connection;
    if (!connection) throw new XdogError(ErrorCodes.MCP_FAILED, `MCP server "${entry.id}" is not connected`);
    const headers = spec.mirrors.length > 0 ? mirroredHeaders(spec.mirrors, args) : undefined;
    const result = await connection.request('tools/call', { name: spec.name, arguments: args }, { ...options, ...(headers ? { headers } : {}) });
    return toAgentResult(result, { server: entry.id, tool: spec.name, outputSchema: spec.output });
  }

  #changed(): void {
    this.#proxies = [...this.#servers.values()].flatMap((entry) => entry.tools.map((spec) => this.#proxy(entry, spec)));
    for (const listener of [...this.#listeners]) listener();
  }

  #statusOf(entry: ServerEntry): McpServerStatus {
    const { config } = entry;
    const connection = entry.connection;
    const server = connection?.serverInfo;
    return {
      id: entry.id,
      transport: config.transport,
      state: entry.state,
      allowTools: config.allow_tools === true,
      target: config.transport === 'stdio' ? [config.command, ...(config.args ?? [])].join(' ') : endpointLabel(config.url),
      envNames: config.transport === 'stdio' ? Object.keys(config.env ?? {}) : [],
      headerNames: config.transport === 'http' ? [...Object.keys(config.headers ?? {}), ...Object.keys(config.headers_env ?? {})] : [],
      roots: config.roots?.length ?? 0,
      ...(server ? { server: { name: server.name, version: server.version } } : {}),
      ...(connection?.protocolVersion ? { protocolVersion: connection.protocolVersion } : {}),
      ...(connection?.era ? { era: connection.era } : {}),
      ...(connection?.legacyReason ? { legacyReason: connection.legacyReason } : {}),
      ...(connection?.era ? { capabilities: Object.keys(connection.capabilities) } : {}),
      tools: entry.tools.length,
      stale: entry.stale,
      diagnostics: [...entry.diagnostics],
      ...(entry.error ? { error: entry.error } : {}),
      ...(entry.connection?.stdio?.pid !== undefined ? { pid: entry.connection.stdio.pid } : {}),
    };
  }

  #entry(id: string): ServerEntry {
    const entry = this.#servers.get(id);
    if (!entry) {
      throw new XdogError(ErrorCodes.NOT_FOUND, `no MCP server "${id}" is registered`, {
        hint: `registered: ${this.servers().join(', ') || 'none'}; add it under mcp_servers in the config file`,
      });
    }
    return entry;
  }

  #connected(id: string): ServerEntry {
    const entry = this.#entry(id);
    if (!entry.connection || entry.state !== 'connected') {
      throw new XdogError(ErrorCodes.INVALID_STATE, `MCP server "${id}" is not connected (${entry.state}${entry.error ? `: ${entry.error}` : ''})`, {
        hint: `connect it first: xdog agent chat --mcp ${id} (in the SDK, registry.connect("${id}"))`,
      });
    }
    return entry;
  }

  #requireCapability(entry: ServerEntry, capability: 'resources' | 'prompts' | 'completions'): void {
    const capabilities = entry.connection!.capabilities;
    if (!capabilities[capability]) {
      throw new XdogError(ErrorCodes.MCP_FAILED, `MCP server "${entry.id}" does not offer ${capability}`, {
        hint: `its capabilities: ${Object.keys(capabilities).join(', ') || 'none'}`,
      });
    }
  }

  #assertOpen(): void {
    if (this.#closed) throw new XdogError(ErrorCodes.CLOSED, 'this MCP registry is closed');
  }
}

/** Validates one advertised tool and compiles its schemas. */
function toolSpec(server: string, raw: unknown, index: number, http: boolean): ToolSpec {
  if (typeof raw !== 'object' || raw === null) throw new Error(`entry ${index} is not an object`);
  const tool = raw as Record<string, unknown>;
  if (typeof tool.name !== 'string' || tool.name === '' || tool.name.length > 128) throw new Error('name must be a string of 1-128 characters');
  if (tool.description !== undefined && typeof tool.description !== 'string') throw new Error('description must be a string');
  const inputSchema = tool.inputSchema as Record<string, unknown>;
  if (typeof inputSchema !== 'object' || inputSchema === null || inputSchema.type !== 'object') {
    throw new Error('inputSchema must be a JSON Schema with type "object"');
  }
  const input = compileSchema(inputSchema, 'inputSchema');
  // Over HTTP a tool with a broken x-mcp-header is excluded (the spec's rule); stdio ignores the annotation.
  const mirrors = http ? headerMirrors(inputSchema) : [];
  const outputSchema = tool.outputSchema as Record<string, unknown> | undefined;
  const output = outputSchema === undefined ? undefined : compileSchema(outputSchema, 'outputSchema');
  return {
    server,
    name: tool.name,
    alias: toolAlias(server, tool.name),
    ...(typeof tool.title === 'string' ? { title: tool.title } : {}),
    description: (tool.description as string | undefined) ?? '',
    inputSchema,
    ...(outputSchema ? { outputSchema } : {}),
    ...(tool.annotations && typeof tool.annotations === 'object' ? { annotations: tool.annotations as Record<string, unknown> } : {}),
    input,
    ...(output ? { output } : {}),
    mirrors,
  };
}

/**
 * The schema the agent and the model get. Our own check keeps the advertised
 * dialect; a draft-06 schema is handed on as draft-07 (same keywords for
 * argument objects), since generic validators rarely ship the draft-06 meta-schema.
 */
function modelParameters(schema: Record<string, unknown>): Record<string, unknown> {
  return schemaDialect(schema) === 'draft-06' ? { ...schema, $schema: 'http://json-schema.org/draft-07/schema#' } : schema;
}

function publicInfo(spec: ToolSpec): McpToolInfo {
  const { input: _input, output: _output, mirrors: _mirrors, ...info } = spec;
  return info;
}

function endpointLabel(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}
