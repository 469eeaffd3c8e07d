/**
 * The gateway's methods: params validated by the protocol schemas, the group
 * resolved, then one call into a group runtime or the store. Reads are
 * allowed while a group runs; changes go through `GroupRuntime.control`.
 */
import { z } from 'zod';
import { ErrorCodes, XdogError, parseTraceCarrier, toolDefinition } from '../../core/index.js';
import type { SessionStore } from '../sessions/tokens.js';
import type { GroupRuntime } from './group-runtime.js';
import { MethodParams, type GatewayStatus, type MethodName, type ParamsOf, type WorkersReport } from './protocol.js';
import type { GatewayService, MethodConnection } from './services.js';
import type { RpcJob } from '../../core/rpc/index.js';
import type { Subscriptions } from './subscriptions.js';
import type { TranscriptReader } from './transcript.js';
import type { Uploads } from './uploads.js';
import { workspaceDiff } from './workspace-diff.js';

/** A protocol method: params, the calling connection, and the request's job (its signal fires when the client cancels it or leaves). */
export type MethodHandler = (params: unknown, connection: MethodConnection, job?: RpcJob) => Promise<unknown>;

export interface MethodContext {
  groups: ReadonlyMap<string, GroupRuntime>;
  defaultGroup: string | undefined;
  store: SessionStore;
  subscriptions: Subscriptions;
  transcripts: TranscriptReader;
  /** The connections' chunked image uploads (shared with services: a child's input may name one). */
  uploads: Uploads;
  status(): GatewayStatus;
  /** Every configured group (a worker serves some of them). */
  configured?: ReadonlySet<string>;
  /** The workers sharing the store (`workers.list`). */
  workers(): Promise<WorkersReport>;
  /** Told (inside the control) after `session.resume` made a session active. */
  sessionResumed?(group: string, sessionId: string): Promise<void>;
}

type Handlers = { [M in MethodName]: (params: ParamsOf<M>, connection: MethodConnection) => Promise<unknown> | unknown };

function invalidParams(method: string, error: z.ZodError): XdogError {
  const problems = error.issues.map((issue) => `${issue.path.join('.') || '(params)'}: ${issue.message}`);
  return new XdogError(ErrorCodes.INVALID_ARGUMENT, `${method}: invalid params: ${problems.join('; ')}`, { hint: 'see docs/protocol.md for the method', details: { problems } });
}

/** Finds a group by name, else the default group; a clear error names the groups there are. */
export function groupResolver(groups: ReadonlyMap<string, GroupRuntime>, defaultGroup: string | undefined, configured?: ReadonlySet<string>): (name: string | undefined) => GroupRuntime {
  return (name) => {
    const chosen = name ?? defaultGroup;
    if (!chosen) {
      throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'no group given and no default group', { hint: `name one of: ${[...groups.keys()].join(', ')} (or set claw.default_group)` });
    }
    const runtime = groups.get(chosen);
    if (!runtime && configured?.has(chosen)) {
      throw new XdogError(ErrorCodes.UNAVAILABLE, `group ${chosen} is not served by this worker right now (it is moving between workers)`, { hint: 'retry in a moment; `xdog claw workers` shows who owns it' });
    }
    if (!runtime) throw new XdogError(ErrorCodes.NOT_FOUND, `no group named "${chosen}"`, { hint: `groups: ${[...groups.keys()].join(', ') || 'none'}; add it under claw.groups and restart the gateway` });
    return runtime;
  };
}

/** Builds the handler table of every protocol method. */
export function createMethods(context: MethodContext): Map<string, MethodHandler> {
  const group = groupResolver(context.groups, context.defaultGroup, context.configured);
  /** The session a read names, else the group's active one. */
  const sessionOf = async (runtime: GroupRuntime, sessionId: string | undefined): Promise<string> => {
    const id = sessionId ?? runtime.activeSessionId;
    if (!id) throw new XdogError(ErrorCodes.NOT_FOUND, `group ${runtime.name} has no active session yet`, { hint: 'send a prompt or create one with session.new' });
    const session = await context.store.getSession(id);
    if (session.group !== runtime.name) throw new XdogError(ErrorCodes.NOT_FOUND, `session ${id} belongs to group ${session.group}, not ${runtime.name}`, { hint: 'name its own group' });
    return id;
  };
  const activeOf = (runtime: GroupRuntime): string => {
    const id = runtime.activeSessionId;
    if (!id) throw new XdogError(ErrorCodes.NOT_FOUND, `group ${runtime.name} has no active session`, { hint: 'send a prompt or create one with session.new' });
    return id;
  };
  /** The active session, once its saved model resolves (fork, goto and branch keep the session's model). */
  const servable = async (runtime: GroupRuntime): Promise<string> => {
    const id = activeOf(runtime);
    await runtime.checkSessionModel(id);
    return id;
  };
  const { store } = context;
  const { uploads } = context;
  const expectationFor = (method: string, expected: string | null | undefined): string | null => {
    if (expected === undefined) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `${method}: a change needs expectedSessionId`, { hint: 'pass the active session id you saw (null if none)' });
    return expected;
  };

  const handlers: Handlers = {
    'gateway.status': () => context.status(),
    'group.list': () => [...context.groups.values()].map((runtime) => runtime.status()),
    'group.status': (params) => group(params.group).status(),

    prompt: (params, connection) => {
      const parent = parseTraceCarrier(params._meta);
      return group(params.group).prompt(params.text, uploads.resolve(connection, params.images ?? []), params.idempotencyKey, params.expectedSessionId, undefined, { via: 'client', ...(parent ? { parent } : {}) });
    },
    steer: (params, connection) => group(params.group).queueInput('steer', params.text, uploads.resolve(connection, params.images ?? []), params.expectedSessionId),
    follow_up: (params, connection) => group(params.group).queueInput('followUp', params.text, uploads.resolve(connection, params.images ?? []), params.expectedSessionId),
    'upload.begin': (params, connection) => uploads.begin(connection, params),
    'upload.chunk': (params, connection) => uploads.chunk(connection, params.uploadId, params.offset, params.data),
    'queue.list': (params) => group(params.group).queueList(),
    'queue.edit': (params) => group(params.group).queueChange(params.id, { edit: params.text }),
    'queue.remove': (params) => group(params.group).queueChange(params.id, { remove: true }),
    'queue.move': (params) => group(params.group).queueChange(params.id, { move: params.direction }),
    abort: (params) => group(params.group).abort(),

    subscribe: async (params, connection) => {
      const runtime = group(params.group);
      if (params.sessionId) await sessionOf(runtime, params.sessionId);
      return { subscriptionId: context.subscriptions.add(connection, runtime.name, params.sessionId), group: runtime.status() };
    },
    unsubscribe: (params, connection) => {
      context.subscriptions.remove(params.subscriptionId, connection);
      return {};
    },

    'session.new': (params) => {
      const runtime = group(params.group);
      return runtime.control(params.expectedSessionId, () => store.createSession(runtime.name, runtime.newSessionOptions(params.name), { expectedActiveSessionId: params.expectedSessionId }), 'navigation');
    },
    'session.resume': async (params) => {
      const runtime = group(params.group);
      await sessionOf(runtime, params.sessionId);
      return runtime.control(params.expectedSessionId, async () => {
        await runtime.checkSessionModel(params.sessionId);
        await store.activate(runtime.name, params.sessionId, { expectedActiveSessionId: params.expectedSessionId });
        await context.sessionResumed?.(runtime.name, params.sessionId);
        return store.getSession(params.sessionId);
      }, 'navigation');
    },
    'session.fork': (params) => {
      const runtime = group(params.group);
      return runtime.control(params.expectedSessionId, async () => store.fork(await servable(runtime), params.index, { expectedActiveSessionId: params.expectedSessionId }), 'navigation');
    },
    'session.goto': (params) => {
      const runtime = group(params.group);
      return runtime.control(params.expectedSessionId, async () => store.goto(await servable(runtime), params.index), 'navigation');
    },
    'session.branch': (params) => {
      const runtime = group(params.group);
      return runtime.control(params.expectedSessionId, async () => store.branch(await servable(runtime), params.entryId), 'navigation');
    },
    'session.name': async (params) => {
      const runtime = group(params.group);
      const sessionId = await sessionOf(runtime, params.sessionId);
      return runtime.control(params.expectedSessionId, () => store.setName(sessionId, params.name), 'session');
    },
    'session.archive': async (params) => {
      const runtime = group(params.group);
      await sessionOf(runtime, params.sessionId);
      return runtime.control(params.expectedSessionId, () => store.archive(params.sessionId), 'navigation');
    },
    'session.compact': (params) => group(params.group).compact(params.expectedSessionId, params.focus?.trim() || undefined),
    'compact.cancel': (params) => group(params.group).cancelCompaction(),
    'session.list': (params) => store.listSessions(group(params.group).name, { includeArchived: params.includeArchived, limit: params.limit, offset: params.offset }),
    'session.search': (params) => store.searchSessions(group(params.group).name, params.query, { includeArchived: params.includeArchived, limit: params.limit }),
    'session.show': async (params) => {
      const sessionId = await sessionOf(group(params.group), params.sessionId);
      const [session, state, checkpoints] = await Promise.all([store.getSession(sessionId), store.getState(sessionId), store.checkpoints(sessionId)]);
      return { session, state, checkpoints };
    },
    'session.tree': async (params) => store.tree(await sessionOf(group(params.group), params.sessionId), { cursor: params.cursor, limit: params.limit }),
    'session.model': async (params) => {
      const runtime = group(params.group);
      const sessionId = activeOf(runtime);
      if (params.model === undefined) return { model: (await store.getState(sessionId)).model };
      const model = runtime.resolveModel(params.model).qualified;
      return runtime.control(expectationFor('session.model', params.expectedSessionId), async () => ({ model: (await store.updateState(sessionId, { model })).model }), 'session');
    },
    'session.thinking': async (params) => {
      const runtime = group(params.group);
      const sessionId = activeOf(runtime);
      const state = await store.getState(sessionId);
      if (params.thinking === undefined) return { thinking: state.thinking };
      if (params.thinking !== null) runtime.checkThinking(params.thinking, state.model);
      return runtime.control(expectationFor('session.thinking', params.expectedSessionId), async () => ({ thinking: (await store.updateState(sessionId, { thinking: params.thinking })).thinking }), 'session');
    },

    'models.list': (params) => group(params.group).modelCatalog(),
    'tools.list': (params) => ({ tools: group(params.group).tools().map(toolDefinition) }),
    'workspace.diff': (params) => workspaceDiff(group(params.group).status().workspace),
    'transcript.read': async (params) => context.transcripts.read(await sessionOf(group(params.group), params.sessionId), params.offset, params.untilEntryId),
    'usage.summary': (params) => store.usageSummary({ group: params.group === undefined ? undefined : group(params.group).name, sessionId: params.sessionId, since: params.since, ...(params.by ? { by: params.by } : {}) }),
    'workers.list': () => context.workers(),
  };

  const methods = new Map<string, MethodHandler>();
  for (const name of Object.keys(MethodParams) as MethodName[]) {
    methods.set(name, validated(name, MethodParams[name] as z.ZodType, handlers[name] as (params: unknown, connection: MethodConnection) => unknown));
  }
  return methods;
}

/** The gateway's own methods that only read: `jobs.cancel` may cancel them (a change always runs to its end). */
const READ_METHODS: readonly MethodName[] = ['gateway.status', 'group.list', 'group.status', 'queue.list', 'session.list', 'session.search', 'session.show', 'session.tree', 'models.list', 'tools.list', 'workspace.diff', 'transcript.read', 'usage.summary', 'workers.list'];

/** The methods a client may cancel: the gateway's reads and the services' methods that say they only read or wait. */
export function cancellableMethods(services: readonly GatewayService[]): Set<string> {
  const names = new Set<string>(READ_METHODS);
  for (const service of services) for (const [name, method] of Object.entries(service.methods ?? {})) if (method.cancellable) names.add(name);
  return names;
}

/** Adds the services' methods; a name that is taken fails (two owners of one method would be ambiguous). */
export function addServiceMethods(methods: Map<string, MethodHandler>, services: readonly GatewayService[]): void {
  const owners = new Map<string, string>();
  for (const service of services) {
    for (const [name, method] of Object.entries(service.methods ?? {})) {
      if (methods.has(name)) {
        const owner = owners.get(name);
        throw new XdogError(ErrorCodes.PLUGIN_INVALID, `gateway service "${service.name}" adds method "${name}", which ${owner ? `service "${owner}"` : 'the gateway'} already has`, {
          hint: 'give the method a name under the service\'s own prefix (e.g. "schedule.add")',
        });
      }
      owners.set(name, service.name);
      methods.set(name, validated(name, method.params, method.handle as ServiceHandler));
    }
  }
}

type ServiceHandler = (params: unknown, connection: MethodConnection, job: RpcJob) => unknown;

/** The job of a call that came from no client request (a handoff from another worker): nothing cancels it. */
const DETACHED_JOB: RpcJob = { signal: new AbortController().signal };

/** A handler that validates its params against the schema first. */
function validated(name: string, schema: z.ZodType, handler: ServiceHandler): MethodHandler {
  return async (raw, connection, job) => {
    const parsed = schema.safeParse(raw ?? {});
    if (!parsed.success) throw invalidParams(name, parsed.error);
    return handler(parsed.data, connection, job ?? DETACHED_JOB);
  };
}
