/**
 * Eyes as a capability. Opening it ensures the shared daemon (starting it
 * when none runs) and connects; its tools call that connection. Closing the
 * binding only detaches: the daemon, its targets and its watches keep running
 * until `xdog eyes stop`. It is `explicit`: it opens only when a host names it
 * (config `capabilities: [eyes]`), never as one of every installed capability.
 */
import { markReadOnly } from '../tools/index.js';
import { modelRegistryFor, type CapabilityProvider } from '../../core/index.js';

export const eyesCapability: CapabilityProvider = {
  name: 'eyes',
  description: 'See web pages in a shared headless browser and watch pages, files and commands for change',
  explicit: true,
  async open(context) {
    const { ensureEyes } = await import('./client.js');
    const { createEyesTools } = await import('./tools.js');
    const client = await ensureEyes({ client: `xdog ${context.scope} ${context.host.id}`, allowHosts: context.config.eyes?.allow_hosts ?? [] });
    const model = context.host.runtime?.model;
    const info = model ? safeInfo(context.kernel, model) : undefined;
    const tools = createEyesTools({
      client: async () => client,
      workspace: context.host.cwd ?? process.cwd(),
      images: info ? { accepted: info.input === undefined || info.input.includes('image'), limits: info.images } : undefined,
    });
    // Looking and reading change nothing: the read-only scope allows them; a watch is a change of state.
    for (const eyesTool of tools) if (eyesTool.name === 'eyes_look' || eyesTool.name === 'eyes_read') markReadOnly(eyesTool);
    return { tools, close: () => client.close() };
  },
};

function safeInfo(kernel: Parameters<typeof modelRegistryFor>[0], model: string) {
  try {
    return modelRegistryFor(kernel).resolve(model).info;
  } catch {
    return undefined;
  }
}
