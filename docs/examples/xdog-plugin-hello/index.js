// An xdog plugin written only against the public API of the `xdog` package, in the short form.
import { definePlugin } from 'xdog';

/** The `hello` tool. A factory: the kernel calls it once with { cwd, clock, get }. */
export function helloTool() {
  return {
    name: 'hello',
    description: 'Greets someone by name. Call it when the user asks you to say hello to a person.',
    parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false },
    execute: async ({ name }) => ({ content: [{ type: 'text', text: `Hello, ${name}!` }] }),
  };
}

export default definePlugin({
  name: 'xdog-plugin-hello',
  provides: { tools: ['hello'] },
  tools: [helloTool],
  hooks: {
    // A veto, tapped on every agent: the model gets an error tool result naming the reason.
    beforeToolCall: ({ tool, args }) =>
      tool.name === 'hello' && args.name === 'Voldemort' ? { block: true, reason: 'we do not greet him' } : undefined,
  },
});
