/**
 * The gateway's `children` service: child agents inside the gateway for a
 * group, sharing its workspace, model access and tools, built by the group's
 * kernel so every gate the group's agent has (read-only scope, plan mode)
 * applies to them too; a read-only child gets the read-only gate on top.
 * Clients start children with `agents.*`; the group's own model with the
 * `agent` tool of its kernel, on the same runtime (the same caps and
 * records). Records are durable (ChildRecordStore); at start, children a
 * previous process left running are marked interrupted, never re-run. While
 * the store holds running children of a group, changes of its active session
 * (navigation, automatic resets) and loosening its scope wait (controlRefusal). `child_presets` comes from the config;
 * an invalid catalog fails the gateway's start.
 */
import { ErrorCodes, XdogError, costFunction, textWithin, z } from '../../core/index.js';
import { LIMITS } from '../../core/limits.js';
import { InputImagesSchema, assertSpendAllowed, followGroups, gatewayMethod, type ControlKind, type ControlRefusal, type GatewayHost, type GatewayService, type GroupRuntime } from '../claw-gateway/tokens.js';
import { ChunkedSnapshots } from '../../core/rpc/index.js';
import { ChildRecordStore } from './child-records.js';
import { childInputBytes, childSourceBytes } from './child-source.js';
import { ChildConfigSchema, inheritedContext, parseChildPresets, resolveChildSpec, type ChildPresets } from './contracts.js';
import { DurableChildRuntime } from './durable-runtime.js';
import { GroupChildrenToken } from './group-children.js';
import { createGroupChildHost } from './group-host.js';

const group = { group: z.string().optional() };
const id = textWithin(64, { nonEmpty: true });
const text = textWithin(LIMITS.childInputBytes, { nonEmpty: true });
/** A journaled input's number (`input #N` in `xdog claw agents inspect`). */
const inputId = z.number().int().positive();
/** Where a chunked read is: its offset, and after the first chunk the snapshot it reads. */
const chunkParams = { offset: z.number().int().nonnegative(), snapshot: textWithin(64, { nonEmpty: true }).optional() };

/** "2 child agents are running (c-1, c-2)", by the store (whichever process runs them); undefined when none runs. */
async function runningChildren(records: ChildRecordStore, group: string): Promise<{ text: string; one: boolean } | undefined> {
  const running = (await records.list(group)).filter((child) => child.status === 'running').map((child) => child.id);
  if (running.length === 0) return undefined;
  const one = running.length === 1;
  return { text: `${running.length} child agent${one ? ' is' : 's are'} running (${running.join(', ')})`, one };
}

/**
 * What waits while children run, and why: changing the active session (the
 * children belong to it), and loosening the scope or policy they were started
 * under. Tightening is always allowed: the gates apply to children at their
 * next call. In-place changes (name, model, thinking, compact) do not touch them.
 */
async function controlRefusal(records: ChildRecordStore, group: string, kind: ControlKind): Promise<ControlRefusal | undefined> {
  if (kind !== 'navigation' && kind !== 'loosen') return undefined;
  const children = await runningChildren(records, group);
  if (!children) return undefined;
  const it = children.one ? 'it' : 'they';
  const reason =
    kind === 'navigation'
      ? `${children.text}; changing the active session waits until ${it} end${children.one ? 's' : ''}, since ${it} belong${children.one ? 's' : ''} to it (new, resume, fork, branch, goto, archive and automatic resets)`
      : `${children.text}; loosening the read-only scope, plan mode or extension policy waits until ${it} end${children.one ? 's' : ''}, since ${it} ${children.one ? 'was' : 'were'} started under the tighter one`;
  return { reason, hint: 'wait for them (xdog claw agents wait) or cancel them (xdog claw agents cancel ID); tightening is always allowed' };
}

/** Why an automatic reset of `group` is held back, if it is. */
async function resetHeldBack(records: ChildRecordStore, group: string): Promise<string | undefined> {
  return (await controlRefusal(records, group, 'navigation'))?.reason;
}


/** A method that only reads or waits: a client may cancel it (docs/protocol.md, jobs). */
const READ = { cancellable: true } as const;
export function createChildrenService(): GatewayService {
  let host: GatewayHost | undefined;
  let records: ChildRecordStore | undefined;
  let presets: ChildPresets = {};
  const runtimes = new Map<string, DurableChildRuntime>();
  const sources = new ChunkedSnapshots({ what: "the child's transcript", maxBytes: LIMITS.childSourceBytes, hint: 'read its result with `xdog claw agents inspect`' });
  const inputSources = new ChunkedSnapshots({ what: "the child's input", maxBytes: LIMITS.childInputSourceBytes, hint: 'read its text with `xdog claw agents inspect`' });

  /**
   * A chunk of a snapshot scoped to the group and `keys`: the first read
   * takes it, later ones name it; one that left the cache is never taken
   * again (its source may have changed), so the client starts over.
   */
  const readOnce = (snapshots: ChunkedSnapshots, params: { group?: string; offset: number; snapshot?: string }, keys: readonly string[], take: () => Promise<Buffer>) =>
    snapshots.read([started().host.group(params.group).name, ...keys].join('\0'), params.snapshot, params.offset, async (snapshot) => (snapshot === undefined ? { bytes: await take() } : undefined));

  const started = (): { host: GatewayHost; records: ChildRecordStore } => {
    if (!host || !records) throw new XdogError(ErrorCodes.UNAVAILABLE, 'the children service has not started', { hint: 'retry once the gateway is ready' });
    return { host, records };
  };

  /** A durable runtime for one group: children on the group's kernel (its gates), model access and tools (group-host.ts). */
  const createRuntime = (group: GroupRuntime): DurableChildRuntime => {
    const gateway = started();
    return new DurableChildRuntime({
      records: gateway.records,
      group: group.name,
      log: (line) => gateway.host.log(line),
      cost: costFunction(group.kernel.config),
      // A child spends the group's budgets like its runs do.
      spendCheck: (id) => assertSpendAllowed(gateway.host.hooks, { phase: 'call', group: group.name, source: { kind: 'system', origin: 'child', id } }),
      host: createGroupChildHost({
        kernel: group.kernel,
        streamFn: group.streamFn,
        tools: () => group.tools(),
        model: (spec) => group.resolveModel(spec.model ?? group.newSessionOptions().model).qualified,
        compaction: () => group.compactionPolicy(),
        presets,
      }),
    });
  };

  const runtimeOf = (name: string | undefined): DurableChildRuntime => {
    const group = started().host.group(name);
    const runtime = runtimes.get(group.name);
    if (!runtime) throw new XdogError(ErrorCodes.UNAVAILABLE, `group ${group.name} has no children runtime`, { hint: 'restart the gateway' });
    return runtime;
  };
  const spawnParams = z
    .object({ ...group, task: text, images: InputImagesSchema.optional(), access: z.enum(['read-only', 'inherit']).optional(), config: ChildConfigSchema.optional() })
    .strict();

  return {
    name: 'children',
    capabilities: ['children:1'],
    methods: {
      'agents.start': gatewayMethod(spawnParams, async (params, connection) => {
        const runtime = runtimeOf(params.group);
        const images = started().host.inputImages(connection, params.images ?? []);
        // A user's start inherits the active session's conversation unless config.inherit_context is false (--fresh).
        const spec = resolveChildSpec({ action: 'spawn', task: params.task, ...(params.access ? { access: params.access } : {}), ...(params.config ? { config: params.config } : {}) }, runtime.presets, true);
        const sessionId = started().host.group(params.group).activeSessionId;
        if (!spec.inheritContext) return runtime.spawn(spec, { parentSessionId: sessionId, images });
        const conversation = sessionId === null ? [] : (await started().host.store.context(sessionId)).messages;
        return runtime.spawn(spec, { context: inheritedContext(conversation, spec), parentSessionId: sessionId, images });
      }),
      'agents.list': gatewayMethod(z.object(group).strict(), (params) => runtimeOf(params.group).list(), READ),
      'agents.inspect': gatewayMethod(z.object({ ...group, id }).strict(), (params) => runtimeOf(params.group).inspect(params.id), READ),
      // The child's stored transcript as JSONL in chunks of one snapshot (child-source.ts); later chunks name it.
      'agents.source': gatewayMethod(z.object({ ...group, id, ...chunkParams }).strict(), async (params) => ({
        id: params.id,
        ...(await readOnce(sources, params, [params.id], async () => childSourceBytes(await runtimeOf(params.group).transcript(params.id)))),
      }), READ),
      // One journaled input whole, with its images, the same way.
      'agents.input_source': gatewayMethod(z.object({ ...group, id, input: inputId, ...chunkParams }).strict(), async (params) => ({
        id: params.id,
        input: params.input,
        ...(await readOnce(inputSources, params, [params.id, String(params.input)], async () => childInputBytes(await runtimeOf(params.group).inputSource(params.id, params.input)))),
      }), READ),
      'agents.compaction_archives': gatewayMethod(z.object({ ...group, id }).strict(), (params) => runtimeOf(params.group).compactionArchives(params.id), READ),
      'agents.compaction_archive': gatewayMethod(z.object({ ...group, id, generation: z.number().int().positive() }).strict(), (params) => runtimeOf(params.group).compactionArchive(params.id, params.generation), READ),
      'agents.steer': gatewayMethod(z.object({ ...group, id, text, images: InputImagesSchema.optional() }).strict(), (params, connection) =>
        runtimeOf(params.group).queue(params.id, 'steer', params.text, started().host.inputImages(connection, params.images ?? [])),
      ),
      'agents.follow_up': gatewayMethod(z.object({ ...group, id, text, images: InputImagesSchema.optional() }).strict(), (params, connection) =>
        runtimeOf(params.group).queue(params.id, 'followUp', params.text, started().host.inputImages(connection, params.images ?? [])),
      ),
      'agents.edit_input': gatewayMethod(z.object({ ...group, id, input: inputId, text }).strict(), (params) => runtimeOf(params.group).changeInput(params.id, params.input, { text: params.text })),
      'agents.remove_input': gatewayMethod(z.object({ ...group, id, input: inputId }).strict(), (params) => runtimeOf(params.group).changeInput(params.id, params.input, { remove: true })),
      'agents.move_input': gatewayMethod(z.object({ ...group, id, input: inputId, by: z.union([z.literal(-1), z.literal(1)]) }).strict(), (params) => runtimeOf(params.group).changeInput(params.id, params.input, { move: params.by })),
      'agents.cancel': gatewayMethod(z.object({ ...group, id }).strict(), (params) => runtimeOf(params.group).cancel(params.id, 'cancelled by a client (agents.cancel)')),
      'agents.wait': gatewayMethod(
        z.object({ ...group, ids: z.array(id).min(1).max(LIMITS.childRetained).optional(), timeoutSeconds: z.number().positive().max(LIMITS.childTimeoutSeconds * 2).optional() }).strict(),
        // Waiting changes nothing: the client may stop it (jobs.cancel), which ends this wait only.
        (params, _connection, job) => runtimeOf(params.group).wait(params.ids, AbortSignal.any([job.signal, AbortSignal.timeout((params.timeoutSeconds ?? LIMITS.childTimeoutSeconds + 10) * 1000)])),
        READ,
      ),
      'agents.close': gatewayMethod(z.object({ ...group, id }).strict(), async (params) => {
        await runtimeOf(params.group).close(params.id);
        return { closed: params.id };
      }),
    },
    async start(gateway) {
      // An invalid catalog fails the start: no child may start from a preset half read.
      presets = parseChildPresets(gateway.kernel.config.child_presets);
      host = gateway;
      const store = new ChildRecordStore({ store: gateway.store, clock: gateway.clock });
      records = store;
      // Each group as the gateway takes it (a worker takes groups over while it runs).
      await followGroups(gateway, 'children', {
        ready: async (group) => {
          // A child still "running" for a group this process just took ran in a process that is gone.
          const interrupted = await store.recoverInterrupted([group.name]);
          if (interrupted.length) gateway.log(`children: ${interrupted.length} child(ren) of group ${group.name} were running when its gateway stopped; marked interrupted: ${interrupted.join(', ')}`);
          const runtime = createRuntime(group);
          runtimes.set(group.name, runtime);
          // The group's own model reaches it through the `agent` tool its kernel has.
          if (group.kernel.isBound(GroupChildrenToken)) group.kernel.get(GroupChildrenToken).attach(runtime);
          group.addControlGuard((kind) => controlRefusal(store, group.name, kind));
        },
        closing: async (group) => {
          if (group.kernel.isBound(GroupChildrenToken)) group.kernel.get(GroupChildrenToken).attach(undefined);
          await runtimes.get(group.name)?.closeAll(`cancelled: this gateway gave up group ${group.name} (it is stopping, or the group moved to another worker)`);
          runtimes.delete(group.name);
        },
      });
      gateway.hooks.resetSuppressed.tapPromise('children', (reset) => resetHeldBack(store, reset.group));
    },
    async stop() {
      // The groups' `agent` tools answer "not available" from here on, rather than start children nobody stops.
      for (const group of host?.groups.values() ?? []) if (group.kernel.isBound(GroupChildrenToken)) group.kernel.get(GroupChildrenToken).attach(undefined);
      for (const runtime of runtimes.values()) await runtime.closeAll('cancelled: the gateway stopped');
      runtimes.clear();
    },
  };
}
