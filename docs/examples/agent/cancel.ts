import { Agent, type AgentTool } from 'xdog';
import { createFauxStreamFn } from 'xdog/plugins/faux';

export async function main(): Promise<string> {
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  const wait: AgentTool = {
    name: 'wait',
    description: 'Waits until cancelled',
    parameters: { type: 'object' },
    // Long-running tools must honour the signal.
    execute: (_args, { signal }) =>
      new Promise((_resolve, reject) => {
        started();
        signal.addEventListener('abort', () => reject(new Error('cancelled by the user')), { once: true });
      }),
  };
  const agent = new Agent(createFauxStreamFn({ responses: [{ toolCalls: [{ name: 'wait', arguments: {} }] }] }), { model: 'faux/demo' }, { tools: [wait] });
  const run = agent.prompt('wait for me');
  await running;
  await agent.cancelAndWait(); // aborts, then waits for the tool and hooks to settle
  const { status } = await run.result();
  console.log(status, agent.isIdle); // "aborted" true
  await agent.close();
  return status;
}
