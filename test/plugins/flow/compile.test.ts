import { describe, expect, it } from 'vitest';
import { XdogError } from '../../../core/index.js';
import { compileFlow, type FlowProblem, type ToolSignature } from '../../../plugins/flow/compile.js';

const tools: ToolSignature[] = [
  { name: 'current_time', parameters: { type: 'object', properties: { timezone: { type: 'string' } }, additionalProperties: false } },
  { name: 'repeat', parameters: { type: 'object', properties: { text: { type: 'string' }, times: { type: 'integer' } }, required: ['text', 'times'] } },
];

const VALID = `flow: digest
inputs:
  topic: { type: string }
  count: { type: integer, default: 2 }
steps:
  - id: clock
    tool: current_time
    args: { timezone: UTC }
  - id: collect
    agent:
      prompt: |
        It is {{ steps.clock.output }}.
        List {{ inputs.count }} facts about {{ inputs.topic }}.
    output:
      type: object
      properties:
        facts: { type: array, items: { type: string } }
        total: { type: integer }
      required: [facts, total]
  - id: echo
    tool: repeat
    args: { text: "{{ steps.collect.output.facts.0 }}", times: "{{ steps.collect.output.total }}" }
output:
  facts: "{{ steps.collect.output.facts }}"
  first: "{{ steps.echo.output }}"
`;

function problemsOf(text: string): FlowProblem[] {
  try {
    compileFlow(text, { file: 'f.yaml', tools });
  } catch (error) {
    expect(XdogError.is(error, 'FLOW_INVALID')).toBe(true);
    return (error as XdogError).details!.problems as FlowProblem[];
  }
  throw new Error('expected the flow to be rejected');
}

describe('compileFlow', () => {
  it('emits a JSON plan with typed inputs, steps and a derived output schema', () => {
    const plan = compileFlow(VALID, { file: 'digest.yaml', tools });
    expect(plan.format).toBe('xdog.flow.plan/v1');
    expect(plan.steps.map((step) => [step.id, step.kind])).toEqual([['clock', 'tool'], ['collect', 'agent'], ['echo', 'tool']]);
    expect(plan.output.schema).toEqual({
      type: 'object',
      properties: { facts: { type: 'array', items: { type: 'string' } }, first: { type: 'string' } },
      required: ['facts', 'first'],
      additionalProperties: false,
    });
    expect(JSON.parse(JSON.stringify(plan))).toEqual(plan);
  });

  it('reports an unknown step with its line and the fix', () => {
    const text = VALID.replace('{{ steps.collect.output.facts }}', '{{ steps.colect.output.facts }}');
    const [problem] = problemsOf(text);
    expect(problem).toMatchObject({ file: 'f.yaml', line: 24, message: expect.stringContaining('unknown step "colect"') });
    expect(problem!.hint).toContain('clock, collect, echo');
  });

  it('reports a forward reference inside a block prompt at the exact line', () => {
    const text = VALID.replace('List {{ inputs.count }}', 'List {{ steps.echo.output }}');
    const [problem] = problemsOf(text);
    expect(problem).toMatchObject({ line: 13, message: expect.stringContaining('forward reference to step "echo"') });
    expect(problem!.hint).toContain('move step "echo" earlier');
  });

  it('reports a property missing from the referenced output schema', () => {
    const text = VALID.replace('{{ steps.collect.output.facts }}', '{{ steps.collect.output.summary }}');
    const [problem] = problemsOf(text);
    expect(problem).toMatchObject({ line: 24, message: expect.stringContaining('has no property "summary"') });
    expect(problem!.hint).toContain('facts, total');
  });

  it('does not take an inherited member such as "constructor" for a declared property', () => {
    const text = VALID.replace('{{ steps.collect.output.facts }}', '{{ steps.collect.output.constructor }}');
    const [problem] = problemsOf(text);
    expect(problem).toMatchObject({ line: 24, message: expect.stringContaining('has no property "constructor"') });
  });

  it('does not take an inherited member for a declared input', () => {
    const text = VALID.replace('{{ inputs.topic }}', '{{ inputs.constructor }}');
    const [problem] = problemsOf(text);
    expect(problem).toMatchObject({ line: 13, message: expect.stringContaining('no input named "constructor"') });
  });

  it('reports a type mismatch between a reference and a tool argument', () => {
    const text = VALID.replace('times: "{{ steps.collect.output.total }}"', 'times: "{{ steps.collect.output.facts }}"');
    const [problem] = problemsOf(text);
    expect(problem).toMatchObject({ line: 22, message: expect.stringContaining('is array but argument "times" of tool "repeat" expects integer') });
  });

  it('reports every problem at once, sorted by line, and unknown keys and tools', () => {
    const text = VALID.replace('tool: current_time', 'tool: clock_time').replace('output:\n  facts', 'outputs: {}\noutput:\n  facts').replace('{{ inputs.topic }}', '{{ inputs.subject }}');
    const problems = problemsOf(text);
    expect(problems.map((p) => p.line)).toEqual([...problems.map((p) => p.line)].sort((a, b) => a! - b!));
    expect(problems.map((p) => p.message)).toEqual(expect.arrayContaining([expect.stringContaining('outputs: unknown key')]));
  });

  it('rejects duplicate ids, nested flows and agent steps without an output schema', () => {
    const text = `flow: bad
steps:
  - id: a
    agent: { prompt: hi }
  - id: a
    tool: flow
output: { x: "{{ steps.a.output }}" }
`;
    const messages = problemsOf(text).map((p) => `${p.line}: ${p.message}`);
    expect(messages).toEqual(expect.arrayContaining([
      expect.stringMatching(/^3: agent step "a" has no output schema/),
      expect.stringMatching(/^5: step id "a" is used twice/),
      expect.stringMatching(/^6: a flow cannot use the "flow" tool/),
    ]));
    expect(messages.filter((m) => m.includes('used twice'))).toHaveLength(1);
  });

  it('checks literal arguments and required ones against the tool schema', () => {
    const text = VALID.replace('args: { timezone: UTC }', 'args: { timezone: 5 }').replace('times: "{{ steps.collect.output.total }}" }', '}');
    const messages = problemsOf(text).map((p) => p.message);
    expect(messages).toEqual(expect.arrayContaining([
      expect.stringContaining('argument "timezone" of tool "current_time" does not fit'),
      expect.stringContaining('tool "repeat" needs argument "times"'),
    ]));
  });

  it('bounds inline source like a file', () => {
    const huge = `${VALID}\n# ${'x'.repeat(1024 * 1024)}\n`;
    expect(() => compileFlow(huge, { tools })).toThrow(expect.objectContaining({ code: 'LIMIT_EXCEEDED', message: expect.stringContaining('over the limit of 1048576 bytes') }));
  });

  it('reports YAML syntax errors with their line', () => {
    const [problem] = problemsOf('flow: x\nsteps: [\n');
    expect(problem!.message).toMatch(/YAML syntax error/);
    expect(problem!.line).toBeGreaterThan(0);
  });
});
