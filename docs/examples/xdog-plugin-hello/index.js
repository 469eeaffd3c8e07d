// An xdog plugin written only against the public API of the `xdog` package.
import { ContainerModule, ToolContribution, definePlugin, token } from 'xdog';

/** DI token of the service this plugin provides. Other plugins may inject it; a host may rebind it. */
export const Greeter = token('xdog-plugin-hello:Greeter');

/** The default Greeter: greets, and counts the agents the kernel has created. */
export class GreeterImpl {
  agentsCreated = 0;

  greet(name) {
    return `Hello, ${name}!`;
  }
}

/** The `hello` tool: a model calls it with a name and gets a greeting back. */
function createHelloTool(greeter) {
  return {
    name: 'hello',
    description: 'Greets someone by name. Call it when the user asks you to say hello to a person.',
    parameters: {
      type: 'object',
      properties: { name: { type: 'string', description: 'Who to greet' } },
      required: ['name'],
      additionalProperties: false,
    },
    async execute(args) {
      return { content: [{ type: 'text', text: greeter.greet(args.name) }] };
    },
  };
}

export default definePlugin({
  name: 'xdog-plugin-hello',
  provides: { tools: ['hello'] },
  // Binds only: nothing starts here.
  module: new ContainerModule(({ bind }) => {
    bind(Greeter).toConstantValue(new GreeterImpl());
    bind(ToolContribution).toDynamicValue((context) => createHelloTool(context.get(Greeter)));
  }),
  // Taps only: count each agent the kernel creates.
  apply(kernel) {
    const greeter = kernel.get(Greeter);
    kernel.hooks.agentCreated.tap('xdog-plugin-hello', () => {
      greeter.agentsCreated += 1;
    });
  },
});
