import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, runCli } from '../support/cli.js';
import { tempDir } from '../support/temp.js';

const EXAMPLE = path.join(repoRoot, 'docs/examples/flows/topic-digest.yaml');

function isolatedEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const home = tempDir('xdog-flow-home-');
  return { XDG_CONFIG_HOME: path.join(home, 'config'), XDG_DATA_HOME: path.join(home, 'data'), XDOG_CONFIG: '', ...extra };
}

function fauxScript(dir: string, responses: unknown[]): string {
  const file = path.join(dir, 'script.json');
  fs.writeFileSync(file, JSON.stringify({ responses }));
  return file;
}

const FACTS = [{ fact: 'Tides follow the moon', category: 'astronomy' }, { fact: 'Most coasts get two a day', category: 'geography' }];

describe('xdog flow (built CLI)', () => {
  it('validates the documented example flow', () => {
    const result = runCli(['flow', 'validate', EXAMPLE], { env: isolatedEnv() });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('valid (flow "topic-digest", 3 steps)');
  });

  it('reports compile errors with file, line and fix, and exits non-zero', () => {
    const dir = tempDir('xdog-flow-');
    const broken = path.join(dir, 'broken.yaml');
    fs.writeFileSync(broken, fs.readFileSync(EXAMPLE, 'utf8')
      .replace('{{ steps.summarize.output.title }}', '{{ steps.sumarize.output.title }}')
      .replace('Today is {{ steps.clock.output }}', 'Today is {{ steps.later.output }}')
      .replace('args: { timezone: UTC }', 'args: { timezone: 7 }'));
    const result = runCli(['flow', 'validate', broken, '--json'], { env: isolatedEnv() });
    expect(result.status).toBe(1);
    const { error } = JSON.parse(result.stdout) as { error: { code: string; message: string } };
    expect(error.code).toBe('FLOW_INVALID');
    expect(error.message).toContain('3 problems');
    expect(error.message).toContain(`${broken}:13: argument "timezone" of tool "current_time" does not fit: the value must be string`);
    expect(error.message).toContain(`${broken}:37: {{ steps.later.output }}: unknown step "later"`);
    expect(error.message).toMatch(new RegExp(`${broken}:\\d+: \\{\\{ steps.sumarize.output.title \\}\\}: unknown step "sumarize" \\(fix: reference an earlier step: clock, collect, summarize\\)`));
  });

  it('prints one problem per line for people', () => {
    const dir = tempDir('xdog-flow-');
    const broken = path.join(dir, 'broken.yaml');
    fs.writeFileSync(broken, fs.readFileSync(EXAMPLE, 'utf8').replace('{{ steps.collect.output.facts.0.category }}', '{{ steps.collect.output.facts.0.kind }}').replace('default: 3', 'default: 0'));
    const result = runCli(['flow', 'validate', broken], { env: isolatedEnv() });
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([
      `${broken}:9: the default of input "count" does not fit its schema: the value must be >= 1 (fix: change the default or the type)`,
      `${broken}:52: {{ steps.collect.output.facts.0.kind }}: the output of step "collect" at "facts.0" has no property "kind" (fix: use a property its schema declares (it has: fact, category), or add "kind" to that schema)`,
    ]);
  });

  it('compiles to a JSON plan', () => {
    const result = runCli(['flow', 'compile', EXAMPLE, '--json'], { env: isolatedEnv() });
    expect(result.status).toBe(0);
    const plan = JSON.parse(result.stdout);
    expect(plan).toMatchObject({ format: 'xdog.flow.plan/v1', flow: 'topic-digest' });
    expect(plan.steps.map((s: { id: string; kind: string }) => `${s.id}:${s.kind}`)).toEqual(['clock:tool', 'collect:agent', 'summarize:agent']);
  });

  it('runs the three-step flow end to end with the faux provider and prints a result that validates', () => {
    const dir = tempDir('xdog-flow-');
    const log = path.join(dir, 'requests.jsonl');
    // The documented offline script (docs/flow.md), so the doc's command is what runs here.
    const script = path.join(path.dirname(EXAMPLE), 'topic-digest.faux.json');
    const result = runCli(['flow', 'run', EXAMPLE, '--input', 'topic=tides', '--input', 'count=2', '--model', 'faux/scripted', '--json'], {
      env: isolatedEnv({ XDOG_FAUX_SCRIPT: script, XDOG_FAUX_LOG: log }),
    });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const run = JSON.parse(result.stdout);
    expect(run).toMatchObject({
      status: 'completed',
      flow: 'topic-digest',
      output: { title: 'Tides in brief', digest: 'The moon pulls the sea. Two tides a day.', facts: FACTS, first_category: 'astronomy' },
    });
    expect(run.steps.clock).toMatch(/\(UTC\); ISO \d{4}-/);
    // The second agent step saw the first step's output and the tool step's output in its prompt.
    const requests = fs.readFileSync(log, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    expect(requests).toHaveLength(4);
    const summarizePrompt = JSON.stringify(requests[2].messages[0].content);
    expect(summarizePrompt).toContain('Tides follow the moon');
    expect(summarizePrompt).toContain('(UTC)');
    expect(requests[0].tools.map((t: { name: string }) => t.name)).toEqual(['submit_result']);
  });

  it('stops at a failing step and prints its error and the outputs so far', () => {
    const dir = tempDir('xdog-flow-');
    const script = fauxScript(dir, [
      { toolCalls: [{ name: 'submit_result', arguments: { result: { facts: FACTS } } }] },
      { text: 'done' },
      { toolCalls: [{ name: 'submit_result', arguments: { result: { title: 'no digest' } } }] },
      { text: 'I give up.' },
    ]);
    const result = runCli(['flow', 'run', EXAMPLE, '--input', 'topic=tides', '--model', 'faux/scripted'], { env: isolatedEnv({ XDOG_FAUX_SCRIPT: script }) });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('xdog: step "summarize" failed: the agent finished without an accepted submit_result call [FLOW_STEP_FAILED]');
    expect(result.stderr).toContain('outputs so far:');
    expect(result.stderr).toContain('"Tides follow the moon"');
    expect(result.stdout).toBe('');
  });

  it('refuses an input of the wrong type before running anything', () => {
    const result = runCli(['flow', 'run', EXAMPLE, '--input', 'topic=tides', '--input', 'count=many', '--model', 'faux/scripted'], { env: isolatedEnv() });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('input "count" is declared integer but "many" is not valid JSON');
  });

  it('fails on a missing API key before the first step runs', () => {
    const dir = tempDir('xdog-flow-');
    const marker = path.join(dir, 'step-ran');
    const flow = path.join(dir, 'flow.yaml');
    fs.writeFileSync(flow, [
      'flow: keyless',
      'steps:',
      '  - id: touch',
      '    tool: bash',
      `    args: { command: "touch ${marker}" }`,
      '  - id: ask',
      '    agent:',
      '      prompt: "hi"',
      '    output: { type: object, properties: { said: { type: string } }, required: [said] }',
      'output:',
      '  said: "{{ steps.ask.output.said }}"',
      '',
    ].join('\n'));
    const config = path.join(dir, 'config.yaml');
    fs.writeFileSync(config, 'providers:\n  openai: { api_key_env: XDOG_TEST_NO_SUCH_KEY }\n');
    const result = runCli(['flow', 'run', flow, '--model', 'openai/gpt-4.1', '--config', config], { env: isolatedEnv() });
    expect(result.stderr).toMatch(/^xdog: openai: no API key for openai \[AUTH_FAILED\] \(set XDOG_TEST_NO_SUCH_KEY or run: xdog agent login openai\)/);
    expect(result.status).not.toBe(0);
    expect(fs.existsSync(marker)).toBe(false);
  });
});
