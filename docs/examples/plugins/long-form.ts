import { ClockToken, ContainerModule, ToolContribution, createKernel, definePlugin, tapHook, token, type AgentTool, type Clock } from 'xdog';

/** A service of this plugin: other plugins may inject it, a host may rebind it. */
export interface Stamp {
  stamp(text: string): string;
}
export const StampToken = token<Stamp>('xdog-plugin-stamp:Stamp');

export const stampPlugin = definePlugin({
  name: 'xdog-plugin-stamp',
  provides: { tools: ['stamp'] },
  // Binds only; starts nothing. Tokens bound here may be injected by other plugins.
  module: new ContainerModule(({ bind }) => {
    bind(StampToken).toDynamicValue((context): Stamp => {
      const clock = context.get<Clock>(ClockToken);
      return { stamp: (text) => `[${new Date(clock.now()).toISOString()}] ${text}` };
    });
    bind(ToolContribution).toDynamicValue((context): AgentTool<{ text: string }> => {
      const stamper = context.get<Stamp>(StampToken);
      return {
        name: 'stamp',
        description: 'Prefixes a text with the current time.',
        parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        execute: async ({ text }) => ({ content: [{ type: 'text', text: stamper.stamp(text) }] }),
      };
    });
  }),
  // Taps only; starts nothing. The same as `hooks: { afterToolCall }` in the short form.
  apply(kernel) {
    kernel.hooks.agentCreated.tap('xdog-plugin-stamp', (agent) => {
      const untap = tapHook(agent.hooks.afterToolCall, 'xdog-plugin-stamp', (context) => context);
      agent.onClose(untap);
    });
  },
  // Only when the kernel is opened: start what the plugin owns (processes, connections, timers).
  async open({ kernel }) {
    void kernel;
  },
  // Reverse order, also after a failed open: release what open started for this kernel.
  async close({ kernel }) {
    void kernel;
  },
});

export async function main(): Promise<string> {
  const kernel = await createKernel({ plugins: [stampPlugin] });
  await kernel.open();
  const [tool] = kernel.getAll(ToolContribution);
  const result = await tool!.execute({ text: 'hi' }, { toolCallId: 't1', signal: new AbortController().signal, onUpdate: () => undefined, toolCtx: {} });
  await kernel.close();
  return (result.content[0] as { text: string }).text;
}
