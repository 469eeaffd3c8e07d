import { describe, expect, it } from 'vitest';
import { Agent, type AgentToolResult, type ToolResultMessage } from '../../../core/index.js';
import { createFauxStreamFn } from '../../../plugins/faux/index.js';
import { checkResult, createSubmitResultTool } from '../../../plugins/submit-result/index.js';

function call(result: unknown) {
  return { toolCalls: [{ name: 'submit_result', arguments: { result } }] };
}

/** Runs one prompt in which the model calls submit_result once per given value, then stops. */
async function submitAll(values: unknown[], toolCtx: Record<string, unknown>): Promise<ToolResultMessage[]> {
  const streamFn = createFauxStreamFn({ responses: [...values.map(call), { text: 'done' }] });
  const agent = new Agent(streamFn, { model: 'faux/demo' }, { tools: [createSubmitResultTool()], toolCtx });
  try {
    const stream = agent.prompt('produce the result');
    for await (const _event of stream) {
      // drain
    }
    await stream.result();
    return agent.messages.filter((message): message is ToolResultMessage => message.role === 'toolResult');
  } finally {
    await agent.close();
  }
}

const text = (message: ToolResultMessage | AgentToolResult): string => message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');

describe('submit_result (agent-features scenario 5: object schema)', () => {
  const schema = {
    type: 'object',
    properties: { summary: { type: 'string' }, score: { type: 'integer', minimum: 0 } },
    required: ['summary'],
    additionalProperties: false,
  };

  it('writes the sink only after validation; a later failure never erases it', async () => {
    const sink: Record<string, unknown> = {};
    const snapshots: unknown[] = [];
    const tool = createSubmitResultTool();
    const ctx = { result_schema: schema, result_sink: sink };
    const run = (result: unknown) => tool.execute({ result }, { toolCallId: 'x', signal: new AbortController().signal, onUpdate: () => {}, toolCtx: { ...ctx } });

    const invalid = await run({ summary: 42 });
    expect(invalid.isError).toBe(true);
    expect(text(invalid)).toMatch(/^Error: the result does not match the expected format: \/summary must be string/);
    expect('result' in sink).toBe(false);

    const valid = await run({ summary: 'all good', score: 3 });
    expect(valid.isError).toBeUndefined();
    expect(sink.result).toEqual({ summary: 'all good', score: 3 });
    snapshots.push(structuredClone(sink.result));

    const invalidAgain = await run({ summary: 'x', extra: true });
    expect(text(invalidAgain)).toMatch(/^Error: .*must NOT have additional properties \(extra\)/);
    expect(sink.result).toEqual(snapshots[0]);
  });

  it('works through an Agent, whose tool context is a shallow copy per call', async () => {
    const sink: Record<string, unknown> = {};
    const results = await submitAll([{ summary: 1 }, { summary: 'first' }, {}], { result_schema: schema, result_sink: sink });
    expect(results.map((message) => [message.isError, text(message).slice(0, 6)])).toEqual([
      [true, 'Error:'],
      [false, 'Result'],
      [true, 'Error:'],
    ]);
    expect(sink).toEqual({ result: { summary: 'first' } });
  });

  it('honours a draft-07 schema named by $schema', async () => {
    const sink: Record<string, unknown> = {};
    const draft7 = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'array', items: { type: 'number' } };
    const results = await submitAll([[1, 'two'], [1, 2]], { result_schema: draft7, result_sink: sink });
    expect(results.map((message) => message.isError)).toEqual([true, false]);
    expect(sink.result).toEqual([1, 2]);
  });
});

describe('submit_result (agent-features scenario 6: flat form, no schema, retired keys)', () => {
  it('checks each schema object on its own, even when several share an $id', () => {
    // Hosts rebuild schemas (a flow file read again, a new run): the same $id must not clash.
    const schema = { $id: 'https://example.test/result.json', type: 'object', properties: { n: { type: 'number' } }, required: ['n'] };
    expect(checkResult(schema, { n: 1 })).toEqual({ ok: true });
    expect(checkResult(structuredClone(schema), { n: 2 })).toEqual({ ok: true });
    const stricter = { ...structuredClone(schema), required: ['n', 'm'] };
    expect(checkResult(stricter, { n: 3 })).toMatchObject({ ok: false, error: expect.stringContaining("must have required property 'm'") });
    expect(checkResult(schema, { x: 1 })).toMatchObject({ ok: false });
  });

  it('names how many violations it did not list', () => {
    const required = Array.from({ length: 11 }, (_, index) => `p${index}`);
    expect(checkResult({ type: 'object', required }, {})).toMatchObject({ ok: false, error: expect.stringMatching(/p7'.*; and 3 more problems$/) });
  });

  it('flat {"summary":"string"} accepts extra fields and rejects a missing summary', async () => {
    const sink: Record<string, unknown> = {};
    const results = await submitAll([{ note: 'no summary' }, { summary: 'ok', extra: [1] }], { result_schema: { summary: 'string' }, result_sink: sink });
    expect(text(results[0]!)).toMatch(/^Error: .*missing required field "summary"/);
    expect(results[1]!.isError).toBe(false);
    expect(sink.result).toEqual({ summary: 'ok', extra: [1] });
  });

  it('without a schema accepts any JSON: null, arrays and scalars', async () => {
    for (const value of [null, [1, 'a'], 'text', 7, false]) {
      const sink: Record<string, unknown> = {};
      const results = await submitAll([value], { result_sink: sink });
      expect(results[0]!.isError).toBe(false);
      expect(sink).toEqual({ result: value });
    }
  });

  it('rejects a tool context that uses the retired flow_* keys', async () => {
    const sink: Record<string, unknown> = {};
    const results = await submitAll([{ summary: 'x' }], { flow_result_sink: sink, flow_output_schema: { summary: 'string' } });
    expect(results[0]!.isError).toBe(true);
    expect(text(results[0]!)).toBe('Error: tool_ctx uses the retired keys flow_output_schema, flow_result_sink; the host must pass result_schema and result_sink instead');
    expect(sink).toEqual({});
  });
});
