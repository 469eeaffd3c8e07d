import { Agent, tapHook, type AgentTool, type InputTransformRequest, type Message } from 'xdog';
import { createFauxStreamFn } from 'xdog/plugins/faux';

const shell: AgentTool<{ command: string }> = {
  name: 'shell',
  description: 'Runs a shell command',
  parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
  execute: async ({ command }) => ({ content: [{ type: 'text', text: `ran ${command}` }] }),
};

export async function main(): Promise<Message[]> {
  const model = createFauxStreamFn({
    responses: [{ toolCalls: [{ name: 'shell', arguments: { command: 'rm -rf /' } }] }, { text: 'I was not allowed to.' }],
  });
  const agent = new Agent(model, { model: 'faux/demo' }, { tools: [shell] });

  // Policy: block dangerous commands; the model gets an error tool result naming the reason.
  tapHook(agent.hooks.beforeToolCall, 'policy', ({ args }: { args: { command: string } }) =>
    args.command.includes('rm -rf') ? { block: true, reason: 'destructive commands are not allowed' } : undefined,
  );
  // Input: rewrite, reject or handle what users send before it reaches history.
  tapHook(agent.hooks.inputTransform, 'tidy', (request: InputTransformRequest) =>
    request.text.startsWith('/help') ? { action: 'handled', feedback: 'Try asking a question.' } : request.text.trim(),
  );
  // Context: add a note to every request without touching the transcript.
  tapHook(agent.hooks.context, 'note', (messages: Message[]) => [...messages, { role: 'user', content: '(be careful)', timestamp: Date.now() }]);

  await agent.prompt('  clean the disk  ').result();
  const handled = await agent.prompt('/help').result();
  console.log(handled.status, agent.drainHandledInputs()[0]?.feedback);
  console.log(model.requests[0]?.messages.at(-1)); // the note the model saw
  await agent.close();
  return agent.messages;
}
