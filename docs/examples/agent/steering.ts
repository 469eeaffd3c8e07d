import { Agent, type AgentTool } from 'xdog';
import { createFauxStreamFn } from 'xdog/plugins/faux';

export async function main(): Promise<string[]> {
  let buildStarted!: () => void;
  let finishBuild!: () => void;
  const started = new Promise<void>((resolve) => (buildStarted = resolve));
  const build: AgentTool = {
    name: 'build',
    description: 'Builds the project',
    parameters: { type: 'object' },
    execute: async () => {
      buildStarted();
      await new Promise<void>((resolve) => (finishBuild = resolve));
      return { content: [{ type: 'text', text: 'build ok' }] };
    },
  };
  const model = createFauxStreamFn({
    responses: [{ toolCalls: [{ name: 'build', arguments: {} }] }, { text: 'Built; checking tests too.' }, { text: 'Summary: all good.' }],
  });
  const agent = new Agent(model, { model: 'faux/demo' }, { tools: [build] });
  agent.subscribe((event) => {
    if (event.type === 'input_consumed') console.log('admitted', event.id ?? '(plain)', event.message.content);
  });

  const run = agent.prompt('Build it');
  await started;
  agent.queueInput('ui:1', 'also run the tests', 'steer'); // admitted after the tool batch, before the next model call
  agent.followUp('then summarise'); // admitted only when the agent would otherwise stop
  finishBuild();
  await run.result();
  await agent.close();
  return agent.messages.filter((message) => message.role === 'user').map((message) => String(message.content));
}
