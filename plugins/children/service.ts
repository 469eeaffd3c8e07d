/**
 * The gateway's `children` service: child agents inside the gateway for a
 * group, sharing its workspace, model access and tools, built by the group's
 * kernel so every gate the group's agent has (read-only scope, plan mode)
 * applies to them too; a read-only child gets the read-only gate on top.
 * Records are durable (ChildRecordStore); at start, children a previous
 * process left running are marked interrupted, never re-run. While a group
 * has running children, its controls (navigation) and automatic resets are
 * refused.
 */
import { ErrorCodes, XdogError, z } from '../../core/index.js';
import { LIMITS } from '../../core/limits.js';
import { gatewayMethod, type GatewayHost, type GatewayService, type GroupRuntime } from '../claw-gateway/index.js';
import { MemoryAccessScope, tapReadOnlyGate } from '../access/index.js';
import { childPrompt, childTools } from './chat-host.js';
import { ChildRecordStore } from './child-records.js';
import { ChildConfigSchema, resolveChildSpec } from './contracts.js';
import { DurableChildRuntime } from './durable-runtime.js';

const group = { group: z.string().optional() };
const id = z.string().min(1).max(64);
const text = z.string().min(1).max(LIMITS.childInputBytes);

function blockedReason(runtime: DurableChildRuntime | undefined): string | undefined {
  return runtime?.active ? 'child agents are running; navigation and resets wait until they end' : undefined;
}

export function createChildrenService(): GatewayService {
  let host: GatewayHost | undefined;
  let records: ChildRecordStore | undefined;
  const runtimes = new Map<string, DurableChildRuntime>();

  const started = (): { host: GatewayHost; records: ChildRecordStore } => {
    if (!host || !records) throw new XdogError(ErrorCodes.UNAVAILABLE, 'the children service has not started', { hint: 'retry once the gateway is ready' });
    return { host, records };
  };

  /** The group's children runtime, made on first use. */
  const runtimeOf = (name: string | undefined): DurableChildRuntime => {
    const gateway = started();
    const group: GroupRuntime = gateway.host.group(name);
    const existing = runtimes.get(group.name);
    if (existing) return existing;
    const runtime = new DurableChildRuntime({
      records: gateway.records,
      group: group.name,
      log: (line) => gateway.host.log(line),
      host: {
        streamFn: group.streamFn,
        presets: {},
        createChild(spec, streamFn) {
          if (spec.inheritContext) throw new XdogError(ErrorCodes.UNSUPPORTED, 'inherit_context is not supported in claw yet', { hint: 'put what the child needs to know into its task' });
          const model = spec.model ?? group.newSessionOptions().model;
          // The group's kernel taps the group's gates into every agent it creates.
          const agent = group.kernel.createAgent(streamFn, { model: group.resolveModel(model).qualified, systemPrompt: childPrompt(spec), ...(spec.thinking ? { thinking: spec.thinking } : {}) }, { tools: childTools(spec, group.tools()) });
          if (spec.access === 'read-only') tapReadOnlyGate(agent.hooks, new MemoryAccessScope('read-only'), () => undefined);
          return agent;
        },
      },
    });
    runtimes.set(group.name, runtime);
    return runtime;
  };

  const spawnParams = z
    .object({ ...group, task: text, access: z.enum(['read-only', 'inherit']).optional(), config: ChildConfigSchema.optional() })
    .strict();

  return {
    name: 'children',
    capabilities: ['children:1'],
    methods: {
      'agents.start': gatewayMethod(spawnParams, async (params) => {
        const runtime = runtimeOf(params.group);
        return runtime.spawn(resolveChildSpec({ action: 'spawn', task: params.task, ...(params.access ? { access: params.access } : {}), ...(params.config ? { config: params.config } : {}) }, runtime.presets));
      }),
      'agents.list': gatewayMethod(z.object(group).strict(), (params) => runtimeOf(params.group).list()),
      'agents.inspect': gatewayMethod(z.object({ ...group, id }).strict(), (params) => runtimeOf(params.group).inspect(params.id)),
      'agents.steer': gatewayMethod(z.object({ ...group, id, text }).strict(), (params) => runtimeOf(params.group).queue(params.id, 'steer', params.text)),
      'agents.follow_up': gatewayMethod(z.object({ ...group, id, text }).strict(), (params) => runtimeOf(params.group).queue(params.id, 'followUp', params.text)),
      'agents.cancel': gatewayMethod(z.object({ ...group, id }).strict(), (params) => runtimeOf(params.group).cancel(params.id)),
      'agents.wait': gatewayMethod(
        z.object({ ...group, ids: z.array(id).min(1).max(LIMITS.childRetained).optional(), timeoutSeconds: z.number().positive().max(LIMITS.childTimeoutSeconds * 2).optional() }).strict(),
        (params) => runtimeOf(params.group).wait(params.ids, AbortSignal.timeout((params.timeoutSeconds ?? LIMITS.childTimeoutSeconds + 10) * 1000)),
      ),
      'agents.close': gatewayMethod(z.object({ ...group, id }).strict(), async (params) => {
        await runtimeOf(params.group).close(params.id);
        return { closed: params.id };
      }),
    },
    async start(gateway) {
      host = gateway;
      records = new ChildRecordStore({ store: gateway.store, clock: gateway.clock });
      const interrupted = await records.recoverInterrupted([...gateway.groups.keys()]);
      if (interrupted.length) gateway.log(`children: ${interrupted.length} child(ren) were running when the gateway stopped; marked interrupted: ${interrupted.join(', ')}`);
      for (const group of gateway.groups.values()) group.addControlGuard(() => blockedReason(runtimes.get(group.name)));
      gateway.hooks.resetSuppressed.tap('children', (reset) => blockedReason(runtimes.get(reset.group)));
    },
    async stop() {
      for (const runtime of runtimes.values()) await runtime.closeAll();
      runtimes.clear();
    },
  };
}
