import { describe, expect, it } from 'vitest';
import { Agent, type AgentTool, type AssistantMessage, type ModelContext, type ModelStreamFn } from '../../../core/index.js';
import { compileFlow, createFlowTool, parseInputPairs, runFlow, toolSignature } from '../../../plugins/flow/index.js';

type Reply = { text: string } | { call: string; args: Record<string, unknown> };

/** A model that answers each request from a function of it, recording the requests. */
function responder(respond: (context: ModelContext) => Reply) {
  const requests: ModelContext[] = [];
  let n = 0;
  const streamFn: ModelStreamFn = async function* (model, context) {
    requests.push(structuredClone(context));
    const reply = respond(context);
    const message: AssistantMessage = {
      role: 'assistant',
      model,
      usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
      timestamp: Date.now(),
      ...('text' in reply
        ? { content: [{ type: 'text' as const, text: reply.text }], stopReason: 'stop' as const }
        : { content: [{ type: 'toolCall' as const, id: `c${++n}`, name: reply.call, arguments: reply.args }], stopReason: 'toolUse' as const }),
    };
    yield { type: 'done', message };
  };
  return { streamFn, requests };
}

const lastUserText = (context: ModelContext) => {
  const user = context.messages.filter((m) => m.role === 'user').at(-1)!;
  return typeof user.content === 'string' ? user.content : user.content.map((p) => (p.type === 'text' ? p.text : '')).join('');
};
const lastIsToolResult = (context: ModelContext) => context.messages.at(-1)?.role === 'toolResult';

const clock: AgentTool = {
  name: 'clock',
  description: 'the time',
  parameters: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'], additionalProperties: false },
  execute: async (args: { zone: string }) => ({ content: [{ type: 'text', text: `12:00 ${args.zone}` }] }),
};

const FLOW = `flow: digest
inputs:
  topic: { type: string }
steps:
  - id: now
    tool: clock
    args: { zone: UTC }
  - id: collect
    agent:
      prompt: "COLLECT facts about {{ inputs.topic }} at {{ steps.now.output }}"
    output:
      type: object
      properties: { facts: { type: array, items: { type: string }, minItems: 1 } }
      required: [facts]
  - id: summarize
    agent:
      prompt: "SUMMARIZE {{ steps.collect.output.facts }}"
    output:
      type: object
      properties: { summary: { type: string } }
      required: [summary]
output:
  summary: "{{ steps.summarize.output.summary }}"
  facts: "{{ steps.collect.output.facts }}"
  time: "{{ steps.now.output }}"
`;

/** The happy model: submits valid results for both agent steps. */
function happyModel(options: { firstInvalid?: boolean } = {}) {
  let invalidSent = false;
  return responder((context) => {
    const prompt = lastUserText(context);
    if (lastIsToolResult(context)) {
      const result = context.messages.at(-1) as { isError: boolean };
      if (!result.isError) return { text: 'submitted' };
    }
    if (prompt.startsWith('COLLECT')) {
      if (options.firstInvalid && !invalidSent) {
        invalidSent = true;
        return { call: 'submit_result', args: { result: { facts: [] } } };
      }
      return { call: 'submit_result', args: { result: { facts: ['tides follow the moon', 'two a day'] } } };
    }
    return { call: 'submit_result', args: { result: { summary: `summary of ${prompt.slice('SUMMARIZE '.length).split('\n')[0]}` } } };
  });
}

describe('runFlow', () => {
  it('runs a three-step flow and returns output that validates', async () => {
    const plan = compileFlow(FLOW, { tools: [toolSignature(clock)] });
    const model = happyModel();
    const events: string[] = [];
    const result = await runFlow(plan, { topic: 'tides' }, { runtime: { streamFn: model.streamFn, model: 'test/m' }, tools: [clock], onEvent: (e) => events.push(`${e.type}:${e.step}`) });
    expect(result).toEqual({
      status: 'completed',
      flow: 'digest',
      output: {
        summary: 'summary of ["tides follow the moon","two a day"]',
        facts: ['tides follow the moon', 'two a day'],
        time: '12:00 UTC',
      },
      steps: expect.objectContaining({ now: '12:00 UTC' }),
    });
    expect(events).toEqual(['step_start:now', 'step_end:now', 'step_start:collect', 'step_end:collect', 'step_start:summarize', 'step_end:summarize']);
    // The step agent saw the rendered prompt, only submit_result, and the output schema.
    const first = model.requests[0]!;
    expect(lastUserText(first)).toContain('COLLECT facts about tides at 12:00 UTC');
    expect(first.tools.map((t) => t.name)).toEqual(['submit_result']);
    expect(lastUserText(first)).toContain('"minItems":1');
  });

  it('lets an agent fix an invalid submission', async () => {
    const plan = compileFlow(FLOW);
    const model = happyModel({ firstInvalid: true });
    const result = await runFlow(plan, { topic: 'tides' }, { runtime: { streamFn: model.streamFn, model: 'test/m' }, tools: [clock] });
    expect(result.status).toBe('completed');
    const retry = model.requests.find((r) => lastIsToolResult(r) && JSON.stringify(r.messages.at(-1)).includes('Error:'));
    expect(retry).toBeDefined();
  });

  it('stops at a failed step with its error and the outputs so far', async () => {
    const plan = compileFlow(FLOW);
    const model = responder((context) => (lastUserText(context).startsWith('COLLECT') && !lastIsToolResult(context)
      ? { call: 'submit_result', args: { result: { facts: ['a'] } } }
      : { text: 'I will not submit anything' }));
    const result = await runFlow(plan, { topic: 'tides' }, { runtime: { streamFn: model.streamFn, model: 'test/m' }, tools: [clock] });
    expect(result).toMatchObject({
      status: 'failed',
      failedStep: 'summarize',
      error: { code: 'FLOW_STEP_FAILED', message: expect.stringContaining('without an accepted submit_result call') },
      steps: { now: '12:00 UTC', collect: { facts: ['a'] } },
    });
    expect(Object.keys(result.steps)).toEqual(['now', 'collect']);
  });

  it('fails a tool step whose tool reports an error, and checks inputs before running', async () => {
    const failing: AgentTool = { ...clock, execute: async () => ({ content: [{ type: 'text', text: 'clock broke' }], isError: true }) };
    const plan = compileFlow(FLOW);
    const result = await runFlow(plan, { topic: 'x' }, { tools: [failing] });
    expect(result).toMatchObject({ status: 'failed', failedStep: 'now', error: { code: 'TOOL_FAILED', message: expect.stringContaining('clock broke') }, steps: {} });
    await expect(runFlow(plan, {}, { tools: [clock] })).rejects.toThrow(/needs input "topic"/);
    await expect(runFlow(plan, { topic: 'x', extra: 1 }, { tools: [clock] })).rejects.toThrow(/has no input "extra"/);
    // An inherited member name is not a declared input either.
    await expect(runFlow(plan, { topic: 'x', constructor: 1 }, { tools: [clock] })).rejects.toThrow(/has no input "constructor"/);
    expect(() => parseInputPairs(plan, ['toString=1'])).toThrow(/has no input "toString"/);
    // The same input twice is ambiguous: refused, never last-one-wins.
    expect(() => parseInputPairs(plan, ['topic=a', 'topic=b'])).toThrow(expect.objectContaining({ code: 'USAGE', message: expect.stringContaining('input "topic" is given twice') }));
    const noModel = await runFlow(plan, { topic: 'x' }, { tools: [clock] });
    expect(noModel).toMatchObject({ status: 'failed', failedStep: 'collect', error: { code: 'MODEL_UNKNOWN' } });
  });
});

describe('runFlow references', () => {
  it('reads only own properties: an inherited member of an open object is a missing value, not a function', async () => {
    const echo: AgentTool = {
      name: 'echo',
      description: 'echoes',
      parameters: { type: 'object', properties: { text: {} }, required: ['text'] },
      execute: async (args: { text: unknown }) => ({ content: [{ type: 'text', text: `got ${typeof args.text}` }] }),
    };
    const plan = compileFlow(
      `flow: own
inputs:
  bag: { type: object, additionalProperties: { type: string } }
steps:
  - id: say
    tool: echo
    args: { text: "{{ inputs.bag.toString }}" }
output:
  said: "{{ steps.say.output }}"
`,
      { tools: [toolSignature(echo)] },
    );
    const result = await runFlow(plan, { bag: { a: 'x' } }, { tools: [echo] });
    expect(result).toMatchObject({ status: 'failed', failedStep: 'say', error: { code: 'FLOW_STEP_FAILED', message: expect.stringContaining('has no value at "toString"') } });
    const ok = await runFlow(plan, { bag: { toString: 'own value' } }, { tools: [echo] });
    expect(ok).toMatchObject({ status: 'completed', output: { said: 'got string' } });
  });
});

describe('runFlow cancellation', () => {
  it('stops when the signal aborts mid-run, keeping the outputs so far', async () => {
    const controller = new AbortController();
    const model = responder(() => {
      controller.abort();
      return { text: 'interrupted' };
    });
    const result = await runFlow(compileFlow(FLOW), { topic: 'x' }, { runtime: { streamFn: model.streamFn, model: 'test/m' }, tools: [clock], signal: controller.signal });
    expect(result).toMatchObject({ status: 'failed', failedStep: 'collect', error: { code: 'ABORTED' }, steps: { now: '12:00 UTC' } });
    expect(model.requests).toHaveLength(1);
  });
});

describe('the flow tool', () => {
  it('can be called by an agent, and runs the flow with the host runtime', async () => {
    const model = happyModel();
    const outer = responder((context) => {
      if (context.tools.some((t) => t.name === 'submit_result')) throw new Error('not the outer agent');
      return lastIsToolResult(context) ? { text: 'the flow ran' } : { call: 'flow', args: { action: 'run', source: FLOW, inputs: { topic: 'tides' } } };
    });
    // One stream function serving both: step agents (with submit_result) and the outer agent.
    const streamFn: ModelStreamFn = (m, context, options) =>
      (context.tools.some((t) => t.name === 'submit_result') ? model.streamFn : outer.streamFn)(m, context, options);
    const flowTool = createFlowTool({ cwd: process.cwd(), runtime: { streamFn, model: 'test/m' }, tools: () => [clock] });
    const agent = new Agent(streamFn, { model: 'test/m' }, { tools: [flowTool] });
    const stream = agent.prompt('run the digest');
    for await (const _event of stream) {
      // drain
    }
    await stream.result();
    const toolResult = agent.messages.find((m) => m.role === 'toolResult') as { isError: boolean; content: Array<{ text: string }> };
    expect(toolResult.isError).toBe(false);
    expect(JSON.parse(toolResult.content[0]!.text)).toMatchObject({ status: 'completed', output: { time: '12:00 UTC' } });
    expect(agent.messages.at(-1)).toMatchObject({ role: 'assistant', content: [{ text: 'the flow ran' }] });
    await agent.close();
  });

  it('validates and compiles, reporting compile errors as an error result', async () => {
    const tool = createFlowTool({ cwd: process.cwd(), tools: () => [clock] });
    const ctx = { toolCallId: 'x', signal: new AbortController().signal, onUpdate() {}, toolCtx: {} };
    await expect(tool.execute({ action: 'validate', source: FLOW }, ctx)).resolves.toMatchObject({ content: [{ text: expect.stringContaining('flow "digest" is valid: 3 step(s)') }] });
    await expect(tool.execute({ action: 'compile', source: FLOW.replace('zone: UTC', 'zone: 5') }, ctx)).rejects.toThrow(/<source>:7: argument "zone" of tool "clock" does not fit/);
  });
});
