import { describe, expect, it } from 'vitest';
import { tapHook, type AgentTool } from '../../../core/index.js';
import { scripted } from './helpers.js';

/** A tool that counts its executions and aborts the run from inside the first one. */
function aborting(name: string, onRun: () => void): { tool: AgentTool; runs: () => number } {
  let runs = 0;
  const tool: AgentTool = {
    name,
    description: name,
    parameters: { type: 'object' },
    execute: async () => {
      runs++;
      onRun();
      return { content: [{ type: 'text', text: `${name} ran` }] };
    },
  };
  return { tool, runs: () => runs };
}

describe('abort inside a tool batch', () => {
  it('sequential mode does not start the calls after an abort; they are answered as not executed', async () => {
    let abort = () => {};
    const first = aborting('first', () => abort());
    const second = aborting('second', () => {});
    const { agent } = scripted(
      [{ toolCalls: [{ name: 'first', arguments: {} }, { name: 'second', arguments: {} }] }, { text: 'never' }],
      { tools: [first.tool, second.tool] },
      { toolExecution: 'sequential' },
    );
    abort = () => agent.abort();
    const asked: string[] = [];
    tapHook(agent.hooks.beforeToolCall, 'approval', (context: { toolCall: { name: string } }) => void asked.push(context.toolCall.name));
    const result = await agent.prompt('go').result();
    expect(result.status).toBe('aborted');
    // No approval is asked for a call that can no longer run.
    expect(asked).toEqual(['first']);
    expect(first.runs()).toBe(1);
    expect(second.runs()).toBe(0);
    const results = agent.messages.filter((message) => message.role === 'toolResult');
    expect(results).toHaveLength(2);
    expect(results[0]).toMatchObject({ toolName: 'first', isError: false });
    expect(results[1]).toMatchObject({ toolName: 'second', isError: true, content: [{ text: expect.stringContaining('not executed') }] });
  });

  it('parallel mode does not execute calls when the abort arrives during preparation', async () => {
    const only = aborting('only', () => {});
    const { agent } = scripted([{ toolCalls: [{ name: 'only', arguments: {} }] }, { text: 'never' }], { tools: [only.tool] });
    tapHook(agent.hooks.beforeToolCall, 'abort-here', async () => {
      agent.abort();
      return undefined;
    });
    const result = await agent.prompt('go').result();
    expect(result.status).toBe('aborted');
    expect(only.runs()).toBe(0);
    expect(agent.messages.at(-1)).toMatchObject({ role: 'toolResult', isError: true, content: [{ text: expect.stringContaining('not executed') }] });
  });
});
