/**
 * The `telemetry` plugin: OpenTelemetry GenAI spans and metrics for every
 * kernel-created agent, and the Telemetry seam the gateway, MCP and children
 * use. Inert without a `telemetry:` config section: this module imports no
 * OpenTelemetry package; `open()` loads the SDK only when one is configured.
 *
 * A host brings its own providers instead with `telemetryOverride()` (a
 * ContainerModule for `createKernel({ overrides })`).
 */
import { ContainerModule, TelemetryHolderToken, configSecrets, costFunction, definePlugin, type Agent, type Kernel, type PluginContext, type Telemetry } from '../../core/index.js';
import { ClawGroupToken } from '../claw-gateway/tokens.js';
import { agentInstrumentation } from './agent-spans.js';
import { Xdog } from './semconv.js';

export { agentInstrumentation, splitModel, tracedModelCall, type AgentIdentity } from './agent-spans.js';
export { GenAi, GenAiOperation, Mcp, Metric, Xdog } from './semconv.js';

/** Pipelines this plugin acquired, by kernel (released at close). */
const acquired = new Map<Kernel, { release(): Promise<void> }>();

export interface TelemetryProviders {
  /** An OpenTelemetry TracerProvider (registered by the host with a context manager, e.g. NodeTracerProvider.register()). */
  tracerProvider: { getTracer(name: string, version?: string): unknown };
  meterProvider?: { getMeter(name: string, version?: string): unknown };
  captureContent?: boolean;
}

/**
 * A host module that makes kernels use the host's own OpenTelemetry
 * providers (and skip the `telemetry:` config section's pipeline). It loads
 * @opentelemetry/api, so call it only where telemetry is wanted.
 */
export async function telemetryOverride(providers: TelemetryProviders): Promise<ContainerModule> {
  const { createOtelTelemetry } = await import('./otel-telemetry.js');
  type Options = Parameters<typeof createOtelTelemetry>[0];
  const telemetry = createOtelTelemetry({
    tracer: providers.tracerProvider.getTracer('xdog') as Options['tracer'],
    ...(providers.meterProvider ? { meter: providers.meterProvider.getMeter('xdog') as NonNullable<Options['meter']> } : {}),
    captureContent: providers.captureContent === true,
  });
  return new ContainerModule(({ rebind }) => {
    rebind(TelemetryHolderToken).toConstantValue({ current: telemetry, hostProvided: true });
  });
}

/** Gives an agent built outside the kernel (an SDK child of `xdog agent chat`) the kernel's spans; nothing without telemetry. */
export function instrumentAgent(kernel: Kernel, agent: Agent): void {
  const telemetry = kernel.isBound(TelemetryHolderToken) ? kernel.get(TelemetryHolderToken).current : undefined;
  if (telemetry) agent.setInstrumentation(agentInstrumentation(telemetry, { cost: costFunction(kernel.config) }));
}

export default definePlugin({
  name: 'telemetry',
  module: new ContainerModule(({ bind }) => {
    bind(TelemetryHolderToken).toConstantValue({});
  }),
  apply(kernel: Kernel) {
    kernel.hooks.agentCreated.tap('telemetry', (agent) => {
      const telemetry: Telemetry | undefined = kernel.get(TelemetryHolderToken).current;
      if (!telemetry) return;
      // A claw group's kernel: its agents' spans and metrics carry the group.
      const group = kernel.isBound(ClawGroupToken) ? kernel.get(ClawGroupToken).name : undefined;
      const cost = costFunction(kernel.config);
      agent.setInstrumentation(agentInstrumentation(telemetry, group ? { name: group, attributes: { 'xdog.group': group }, cost } : { cost }));
    });
  },
  async open({ kernel }: PluginContext) {
    const holder = kernel.get(TelemetryHolderToken);
    const config = kernel.config.telemetry;
    // A claw group's kernel: everything it traces (runs, MCP requests, extension callbacks, store transactions inside them) carries the group,
    // on the host's own providers as on the config's pipeline.
    const group = kernel.isBound(ClawGroupToken) ? kernel.get(ClawGroupToken).name : undefined;
    const scoped = async (telemetry: Telemetry) => (group ? (await import('./otel-telemetry.js')).scopedTelemetry(telemetry, { [Xdog.group]: group }) : telemetry);
    if (holder.hostProvided) {
      if (holder.current) holder.current = await scoped(holder.current);
      return;
    }
    if (!config) return;
    const { acquirePipeline } = await import('./pipeline.js');
    const pipeline = await acquirePipeline(config, configSecrets(kernel.config));
    acquired.set(kernel, pipeline);
    holder.current = await scoped(pipeline.telemetry);
  },
  async close({ kernel }: PluginContext) {
    const pipeline = acquired.get(kernel);
    acquired.delete(kernel);
    const holder = kernel.get(TelemetryHolderToken);
    if (!holder.hostProvided) delete holder.current;
    await pipeline?.release();
  },
});
