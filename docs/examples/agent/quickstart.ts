import { z } from 'zod';
import { Agent, type AgentTool } from 'xdog';
import { createFauxStreamFn } from 'xdog/plugins/faux';

// A tool: zod parameters are validated before anything else sees them.
const add: AgentTool<{ a: number; b: number }> = {
  name: 'add',
  description: 'Adds two numbers',
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
};

// A scripted model: it calls the tool once, then answers.
const model = createFauxStreamFn({
  responses: [{ toolCalls: [{ name: 'add', arguments: { a: 2, b: 3 } }] }, { text: '2 + 3 = 5' }],
});

export async function main(): Promise<string> {
  await using agent = new Agent(model, { model: 'faux/demo', systemPrompt: 'You add numbers.' }, { tools: [add] });
  let answer = '';
  for await (const event of agent.prompt('What is 2 + 3?')) {
    if (event.type === 'tool_end') console.log(`tool ${event.toolName} ->`, event.result.content);
    if (event.type === 'message_update' && event.delta.type === 'text_delta') answer += event.delta.delta;
  }
  console.log(answer, agent.usage);
  return answer;
}
