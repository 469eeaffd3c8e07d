/** `xdog agent chat` end to end: the built CLI as a process, the faux provider as the model. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { tempDir, writeTree } from '../support/temp.js';

interface LoggedRequest {
  model: string;
  messages: Array<{ role: string; content: unknown }>;
  tools: Array<{ name: string }>;
}

/** A fresh, isolated home for one run with a faux script. */
function setup(responses: unknown[]) {
  const root = tempDir('xdog-e2e-chat-');
  writeTree(root, { 'script.json': { responses }, 'work/notes.txt': 'x' });
  const env = {
    XDG_CONFIG_HOME: path.join(root, 'config'),
    XDG_DATA_HOME: path.join(root, 'data'),
    XDOG_FAUX_SCRIPT: path.join(root, 'script.json'),
    XDOG_FAUX_LOG: path.join(root, 'requests.jsonl'),
  };
  const requests = (): LoggedRequest[] =>
    fs.existsSync(env.XDOG_FAUX_LOG) ? fs.readFileSync(env.XDOG_FAUX_LOG, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as LoggedRequest) : [];
  return { root, env, cwd: path.join(root, 'work'), requests };
}

const echoThenAnswer = [{ toolCalls: [{ name: 'bash', arguments: { command: 'echo hi' } }] }, { text: 'The command printed hi.' }];

// Each case spawns the CLI one or more times; allow for a loaded machine.
describe('xdog agent chat (faux model)', { timeout: 120_000 }, () => {
  it('keeps the todo list in memory for the chat: todo_write saves it, todo_read shows it', () => {
    const todos = [{ text: 'read the notes', status: 'done' }, { text: 'rewrite them', status: 'in_progress' }];
    const { env, cwd, requests } = setup([
      { toolCalls: [{ name: 'todo_write', arguments: { todos } }] },
      { toolCalls: [{ name: 'todo_read', arguments: {} }] },
      { text: 'noted' },
    ]);
    const result = runCli(['agent', 'chat', 'faux/demo', 'plan it', '--cwd', cwd], { env, cwd });
    expect(result.status).toBe(0);
    const results = requests()[2]!.messages.filter((message) => message.role === 'toolResult').map((message) => JSON.stringify(message.content));
    expect(results).toHaveLength(2);
    for (const shown of results) expect(shown).toContain('todos 1/2 done · now: rewrite them\\n1. [x] read the notes\\n2. [>] rewrite them');
  });

  it('runs a scripted bash call, feeds its output to the next request, and prints the answer', () => {
    const { env, cwd, requests } = setup(echoThenAnswer);
    const result = runCli(['agent', 'chat', 'faux/demo', 'run echo hi', '--cwd', cwd], { env, cwd });
    expect(result.stderr).toContain('[tool] bash {"command":"echo hi"}');
    expect(result.status).toBe(0);
    expect(result.stdout).toBe('The command printed hi.\n');
    const [first, second] = requests();
    expect(first!.tools.map((tool) => tool.name)).toEqual(['bash', 'read', 'write', 'edit', 'ls', 'grep', 'find', 'current_time', 'todo_write', 'todo_read', 'flow', 'skill', 'agent']);
    expect(second!.messages.at(-1)).toMatchObject({ role: 'toolResult', toolName: 'bash', content: [{ type: 'text', text: 'hi\n' }], isError: false });
  });

  it('--json prints every event as one parseable JSON line', () => {
    const { env, cwd } = setup(echoThenAnswer);
    const result = runCli(['agent', 'chat', 'faux/demo', 'run echo hi', '--json'], { env, cwd });
    expect(result.status).toBe(0);
    const events = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as { type: string });
    const types = events.map((event) => event.type);
    expect(types[0]).toBe('agent_start');
    expect(types.at(-1)).toBe('agent_end');
    expect(types).toEqual(expect.arrayContaining(['turn_start', 'message_update', 'tool_start', 'tool_end', 'turn_end']));
    expect(events.find((event) => event.type === 'tool_end')).toMatchObject({ toolName: 'bash', isError: false, result: { content: [{ type: 'text', text: 'hi\n' }] } });
  });

  it('--no-tools sends zero tool definitions; --tool-ctx @file is parsed and does not add submit_result (scenario 25)', () => {
    const { env, cwd, root, requests } = setup([{ text: 'hello' }]);
    writeTree(root, { 'ctx.json': { result_sink: {}, team: 'a' } });
    const result = runCli(['agent', 'chat', 'faux/demo', 'hi', '--no-tools', '--tool-ctx', `@${path.join(root, 'ctx.json')}`], { env, cwd });
    expect(result.status).toBe(0);
    expect(result.stdout).toBe('hello\n');
    expect(requests()).toHaveLength(1);
    expect(requests()[0]!.tools).toEqual([]);

    const withTools = setup([{ text: 'hello' }]);
    expect(runCli(['agent', 'chat', 'faux/demo', 'hi', '--tool-ctx', '{"a":1}'], { env: withTools.env, cwd: withTools.cwd }).status).toBe(0);
    expect(withTools.requests()[0]!.tools.map((tool) => tool.name)).not.toContain('submit_result');
  });

  it('reads the prompt from stdin when none is given and stdin is not a TTY', () => {
    const { env, cwd, requests } = setup([{ text: 'piped ok' }]);
    const result = runCli(['agent', 'chat', 'faux/demo', '--no-tools'], { env, cwd, input: 'from a pipe\n' });
    expect(result.status).toBe(0);
    expect(requests()[0]!.messages[0]).toMatchObject({ role: 'user', content: 'from a pipe' });
  });

  it('usage errors exit 2 with a one-line message', () => {
    const { env, cwd, requests } = setup([{ text: 'never' }]);
    const cases = [
      ['agent', 'chat', 'faux/demo', 'hi', '--bogus'],
      ['agent', 'chat'],
      ['agent', 'chat', 'faux/demo', 'hi', '--tool-ctx', '[1,2]'],
      ['agent', 'chat', 'nope/model', 'hi'],
      ['agent', 'chat', 'faux/demo', 'hi', '--thinking', 'extreme'],
    ];
    for (const args of cases) {
      const result = runCli(args, { env, cwd });
      expect(result.status, args.join(' ')).toBe(2);
      expect(result.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(result.stderr).toMatch(/^xdog: .+ \[(USAGE|MODEL_UNKNOWN)\]/);
    }
    expect(runCli(['agent', 'chat', 'nope/model', 'hi'], { env, cwd }).stderr).toContain('no active provider "nope"');
    expect(requests()).toHaveLength(0);
  });

  it('shows thinking on stderr and only the answer on stdout', () => {
    const { env, cwd } = setup([{ thinking: 'weighing it up', text: 'forty-two' }]);
    const result = runCli(['agent', 'chat', 'faux/demo', 'answer?', '--no-tools', '--thinking', 'high'], { env, cwd });
    expect(result.status).toBe(0);
    expect(result.stdout).toBe('forty-two\n');
    expect(result.stderr).toBe('[thinking] weighing it up\n');
  });

  it('a model failure exits 1 with the model error', () => {
    const { env, cwd } = setup([{ error: 'the scripted model broke' }]);
    const result = runCli(['agent', 'chat', 'faux/demo', 'hi', '--no-tools'], { env, cwd });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('the scripted model broke [MODEL_FAILED]');
  });
});
