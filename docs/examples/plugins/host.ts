import { ClockToken, ContainerModule, ToolContribution, createKernel, discoverPlugins, overrideContributions, type AgentTool } from 'xdog';

/** The host's own `read`: from its document store instead of the disk. */
const readFromStore: AgentTool<{ path: string }> = {
  name: 'read',
  description: 'Reads a document from the host store.',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  execute: async ({ path }) => ({ content: [{ type: 'text', text: `stored ${path}` }] }),
};

export async function main(): Promise<string[]> {
  // A host app: its own project's plugins and xdog's built-ins, never the CLI user's plugin directory.
  const discovered = discoverPlugins({ userDir: null }).filter((plugin) => plugin.name === 'tools');
  const kernel = await createKernel({
    plugins: discovered,
    overrides: [
      // Replace one tool and remove another by name; every other built-in stays.
      overrideContributions({ tools: { read: readFromStore, bash: null } }),
      // Or rebind any token.
      new ContainerModule(({ rebind }) => void rebind(ClockToken).toConstantValue({ now: () => 0 })),
    ],
  });
  await kernel.open();
  const names = kernel.getAll(ToolContribution).map((tool) => tool.name);
  await kernel.close();
  return names;
}
