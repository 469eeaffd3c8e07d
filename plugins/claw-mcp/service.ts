/**
 * The gateway's `mcp.*` methods: a group's MCP servers, connected on request
 * and owned by the group (docs/mcp.md "In claw groups"). Connect, refresh and
 * disconnect change what the group's agents may call, so they are controls:
 * they need an idle group and the active session the client saw. The rest are
 * reads, inert previews that never reach a model. In a pool of workers a call
 * naming a group is handed to the group's owner, so a connection lives in the
 * one process that runs the group.
 */
import { ErrorCodes, XdogError, z, type XdogConfig } from '../../core/index.js';
import { ClawGroupNameSchema } from '../../core/config.js';
import { ChunkedSnapshots, type SnapshotChunk } from '../../core/rpc/index.js';
import { LIMITS } from '../../core/limits.js';
import { textWithin } from '../../core/text-limit.js';
import { ClientFeatures, followGroups, gatewayMethod, type GatewayHost, type GatewayService, type GroupRuntime } from '../claw-gateway/tokens.js';
import type { McpDocument, McpRegistry } from '../mcp/index.js';
import { followChanges } from './group-changes.js';
import { ElicitationNotifications, GroupElicitations } from './group-elicitation.js';
import { GroupLogins } from './group-logins.js';
import { groupSampler, samplingPolicy } from './group-sampling.js';
import { disconnectGroup, groupRegistry, groupServers, serverOfGroup, type GroupMcpServer } from './group-servers.js';
import { GroupSubscriptions } from './group-subscriptions.js';


/** A method that only reads: a client may cancel it (docs/protocol.md, jobs). */
const READ = { cancellable: true } as const;
export const McpNotifications = {
  /**
   * `{ group, server, state }`: a server of the group was connected, refreshed or disconnected;
   * with `what` ("tools", "resources", "prompts", "resource" and its `uri`): the server announced that change.
   */
  changed: 'mcp.changed',
  ...ElicitationNotifications,
  /** `{ group, server, status: "authorized" | "failed", message }`: an `mcp.authorize` login ended. */
  authorized: 'mcp.authorized',
} as const;

/** One tool of a group's server as `mcp.tools` shows it: what the model sees and what the host's policy says. */
export interface GroupMcpTool {
  server: string;
  name: string;
  alias: string;
  title?: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** The server's `allow_tools` (host policy). */
  allowed: boolean;
  /** Listed in the server's `read_only_tools` (callable under a read-only scope). */
  readOnly: boolean;
  /** The server's own hints; they grant nothing. */
  annotations?: Record<string, unknown>;
}

const Group = ClawGroupNameSchema.optional();
const Server = z.string().min(1).max(LIMITS.mcpServerIdLength);
const Expected = z.string().uuid().nullable();
const GroupParams = z.object({ group: Group }).strict();
const ControlParams = z.object({ group: Group, server: Server, expectedSessionId: Expected }).strict();
const ServerParams = z.object({ group: Group, server: Server }).strict();
const ToolsParams = z.object({ group: Group, server: Server.optional() }).strict();
const ResourcesParams = z.object({ group: Group, server: Server, templates: z.boolean().optional() }).strict();
/** Previews are read in chunks of one snapshot (docs/protocol.md, "Chunked reads"): `offset`, then the first answer's `snapshot`. */
const Chunk = { offset: z.number().int().nonnegative(), snapshot: textWithin(64, { nonEmpty: true }).optional() };
const ReadParams = z.object({ group: Group, server: Server, uri: textWithin(LIMITS.mcpMessageBytes, { nonEmpty: true }), ...Chunk }).strict();
const PromptParams = z.object({ group: Group, server: Server, name: z.string().min(1), arguments: z.record(z.string(), z.string()).optional(), ...Chunk }).strict();
const SubscribeParams = z.object({ group: Group, server: Server, uri: textWithin(LIMITS.mcpMessageBytes, { nonEmpty: true }) }).strict();
const AnswerParams = z
  .object({
    group: Group,
    id: z.string().uuid(),
    action: z.enum(['accept', 'decline', 'cancel']),
    content: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())])).optional(),
    reason: z.string().max(LIMITS.mcpElicitationChars).optional(),
  })
  .strict()
  .refine((answer) => (answer.action === 'accept') === (answer.content !== undefined), { message: 'content is given with accept, and only then' });
const CompleteParams = z
  .object({
    group: Group,
    server: Server,
    kind: z.enum(['prompt', 'resource']),
    name: z.string().min(1),
    argument: z.string().min(1),
    prefix: z.string(),
    context: z.record(z.string(), z.string()).optional(),
  })
  .strict();

/** The MCP service of the gateway. */
export function createClawMcpService(): GatewayService {
  let host: GatewayHost | undefined;
  const started = (): GatewayHost => {
    if (!host) throw new XdogError(ErrorCodes.UNAVAILABLE, 'the MCP service has not started', { hint: 'retry once the gateway is ready' });
    return host;
  };
  const config = (): XdogConfig => started().kernel.config;
  const resolve = (group: string | undefined, server: string) => {
    const runtime = started().group(group);
    return { runtime, registry: serverOfGroup(config(), runtime, server) };
  };
  /** A change of the group's tools, run as a control of `kind`, announced once it took effect. */
  const control = async (params: z.infer<typeof ControlParams>, kind: 'loosen' | 'tighten', change: (runtime: GroupRuntime) => Promise<unknown>): Promise<GroupMcpServer> => {
    const { runtime, registry } = resolve(params.group, params.server);
    try {
      await runtime.control(params.expectedSessionId, () => change(runtime), kind);
    } finally {
      // A change announced while this control held the group is applied now.
      followers.get(runtime.name)?.retry();
    }
    const status = registry.status(params.server)[0]!;
    started().publish(runtime.name, null, McpNotifications.changed, { group: runtime.name, server: params.server, state: status.state });
    return status;
  };

  const previews = new ChunkedSnapshots({ what: 'the MCP preview', maxBytes: LIMITS.mcpPreviewBytes, hint: 'ask the server for a smaller resource or prompt' });
  /** The chunk the client asked for of a preview's JSON: the first one fetches the document, later ones read its snapshot. */
  const preview = (params: { group?: string; server: string; offset: number; snapshot?: string }, fetch: (registry: McpRegistry) => Promise<McpDocument>): Promise<SnapshotChunk> => {
    const { runtime, registry } = resolve(params.group, params.server);
    return previews.read(`${runtime.name}\0${params.server}`, params.snapshot, params.offset, async (snapshot) => (snapshot === undefined ? { bytes: Buffer.from(JSON.stringify(await fetch(registry))) } : undefined));
  };

  const logins = new GroupLogins();
  const elicitations = new GroupElicitations(
    config,
    () => started().clock.now(),
    (group, method, params) => started().publish(group, null, method, params),
    (group) => started().followedWith(group, ClientFeatures.mcpElicitation),
  );
  const subscriptions = new GroupSubscriptions();
  const followers = new Map<string, { retry(): void; stop(): void }>();

  return {
    name: 'claw-mcp',
    capabilities: ['mcp:1', 'mcp-elicitation:1'],
    methods: {
      // Reads and previews are cancellable (jobs.cancel, Escape in the TUI); connects and answers run to their end.
      'mcp.list': gatewayMethod(GroupParams, (params) => groupServers(config(), started().group(params.group)), READ),
      // A new server's tools widen what the group's agents may do: like read-only off, it waits for an idle group.
      // A server that failed or was lost connects anew; one that is up is refused (disconnect it first).
      // What the group followed is forgotten once a new connection is up (a refused connect keeps the old one's).
      'mcp.connect': gatewayMethod(ControlParams, (params) =>
        control(params, 'loosen', async (runtime) => {
          const status = await resolve(runtime.name, params.server).registry.connect(params.server);
          subscriptions.forget(runtime.name, params.server);
          return status;
        }),
      ),
      'mcp.refresh': gatewayMethod(ControlParams, (params) => control(params, 'loosen', (runtime) => resolve(runtime.name, params.server).registry.refresh(params.server))),
      'mcp.disconnect': gatewayMethod(ControlParams, (params) => control(params, 'tighten', (runtime) => (subscriptions.forget(runtime.name, params.server), resolve(runtime.name, params.server).registry.disconnect(params.server)))),
      'mcp.tools': gatewayMethod(ToolsParams, (params): GroupMcpTool[] => {
        const runtime = started().group(params.group);
        const ids = params.server === undefined ? groupServers(config(), runtime).map((server) => server.id) : [params.server];
        return ids.flatMap((id) => {
          const registry = serverOfGroup(config(), runtime, id);
          const serverConfig = config().mcp_servers?.[id];
          const readOnly = new Set(serverConfig?.read_only_tools ?? []);
          return registry.tools(id).map((tool) => ({
            server: id,
            name: tool.name,
            alias: tool.alias,
            ...(tool.title === undefined ? {} : { title: tool.title }),
            description: tool.description,
            inputSchema: tool.inputSchema,
            allowed: registry.allowsTools(id),
            readOnly: readOnly.has(tool.name),
            ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
          }));
        });
      }, READ),
      'mcp.resources': gatewayMethod(ResourcesParams, (params) => {
        const { registry } = resolve(params.group, params.server);
        return params.templates ? registry.catalog(params.server, 'template') : registry.catalog(params.server, 'resource');
      }, READ),
      'mcp.prompts': gatewayMethod(ServerParams, (params) => resolve(params.group, params.server).registry.catalog(params.server, 'prompt'), READ),
      'mcp.read': gatewayMethod(ReadParams, (params, _connection, job) => preview(params, (registry) => registry.resource(params.server, params.uri, { signal: job.signal })), READ),
      'mcp.prompt': gatewayMethod(PromptParams, (params, _connection, job) => preview(params, (registry) => registry.prompt(params.server, params.name, params.arguments ?? {}, { signal: job.signal })), READ),
      // Starts a login on this (the owning) host and answers the URL to open; its end is announced.
      'mcp.authorize': gatewayMethod(ServerParams, (params) => {
        const runtime = started().group(params.group);
        serverOfGroup(config(), runtime, params.server);
        const announce = (status: 'authorized' | 'failed', message: string): void => started().publish(runtime.name, null, McpNotifications.authorized, { group: runtime.name, server: params.server, status, message });
        return logins.start(config(), params.server, announce);
      }),
      'mcp.elicitations': gatewayMethod(GroupParams, (params) => elicitations.list(started().group(params.group).name), READ),
      'mcp.answer': gatewayMethod(AnswerParams, (params) => {
        const group = started().group(params.group).name;
        return elicitations.answer(group, params.id, params.action === 'accept' ? { action: 'accept', content: params.content! } : { action: params.action, ...(params.reason ? { reason: params.reason } : {}) });
      }),
      // Following a resource changes nothing an agent may do: a read, announced as mcp.changed { what: "resource" }.
      'mcp.subscribe': gatewayMethod(SubscribeParams, (params) => {
        const { runtime, registry } = resolve(params.group, params.server);
        return subscriptions.subscribe(runtime.name, registry, params.server, params.uri);
      }),
      'mcp.unsubscribe': gatewayMethod(SubscribeParams, (params) => {
        const { runtime, registry } = resolve(params.group, params.server);
        return subscriptions.unsubscribe(runtime.name, registry, params.server, params.uri);
      }),
      'mcp.complete': gatewayMethod(
        CompleteParams,
        (params, _connection, job) => {
          const { registry } = resolve(params.group, params.server);
          return registry.complete(params.server, { kind: params.kind, name: params.name, argument: params.argument, prefix: params.prefix, ...(params.context ? { context: params.context } : {}) }, { signal: job.signal });
        },
        READ,
      ),
    },
    async start(gatewayHost) {
      host = gatewayHost;
      // A group given up (gateway stop, a move to another worker, a fence) ends its servers first.
      await followGroups(gatewayHost, 'claw-mcp', {
        ready: (runtime) => {
          const registry = groupRegistry(runtime);
          // Per server at its connect: elicitations go to the group's clients; sampling only where the entry allows it.
          const sample = groupSampler(gatewayHost, runtime);
          const elicit = elicitations.handler(runtime.name);
          registry.setHandlers((server) => ({ elicit, ...(samplingPolicy(gatewayHost.kernel.config, server) ? { sample } : {}) }));
          followers.get(runtime.name)?.stop();
          followers.set(runtime.name, followChanges(runtime, registry, {
            config,
            publish: (group, params) => gatewayHost.publish(group, null, McpNotifications.changed, params),
            log: (line) => gatewayHost.log(line),
          }));
        },
        closing: async (runtime) => {
          followers.get(runtime.name)?.stop();
          followers.delete(runtime.name);
          elicitations.cancelGroup(runtime.name, 'the group closed or moved to another worker');
          subscriptions.forgetGroup(runtime.name);
          await disconnectGroup(gatewayHost.kernel.config, runtime, (line) => gatewayHost.log(line));
        },
      });
      gatewayHost.hooks.runEnded.tap('claw-mcp', (run) => followers.get(run.group)?.retry());
    },
    stopping() {
      logins.stop();
    },
    stop() {
      host = undefined;
    },
  };
}
