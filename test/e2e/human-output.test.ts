/** What a person's terminal receives: no raw control sequences from models or tools, and --json errors as one line. */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { tempDir, writeTree } from '../support/temp.js';

function setup(responses: unknown[]) {
  const root = tempDir('xdog-e2e-human-');
  writeTree(root, { 'script.json': { responses }, 'work/.keep': '' });
  const env = { XDG_CONFIG_HOME: path.join(root, 'config'), XDG_DATA_HOME: path.join(root, 'data'), XDOG_FAUX_SCRIPT: path.join(root, 'script.json') };
  return (...args: string[]) => runCli(args, { env, cwd: path.join(root, 'work') });
}

// Set the window title, clear the screen, a C1 CSI, and a carriage return that would overwrite the line.
const HOSTILE = '\u001b]0;pwned\u0007\u001b[2J\u009b31mred\rfake';

describe('human output', { timeout: 120_000 }, () => {
  it('escapes terminal control characters from the model and from tools, and keeps them intact in --json', () => {
    const responses = [
      { thinking: `think ${HOSTILE}`, toolCalls: [{ name: 'bash', arguments: { command: "printf '\\033]0;tool-title\\007done'" } }] },
      { text: `answer ${HOSTILE}\nline two\n` },
    ];
    const chat = setup(responses);
    const human = chat('agent', 'chat', 'faux/demo', 'go');
    expect(human.status).toBe(0);
    expect(human.stdout).toBe('answer \\x1b]0;pwned\\x07\\x1b[2J\\x9b31mred\\x0dfake\nline two\n');
    expect(human.stderr).toContain('[thinking] think \\x1b]0;pwned\\x07');
    expect(human.stderr).toContain('[tool] bash done: \\x1b]0;tool-title\\x07done');
    // eslint-disable-next-line no-control-regex -- the point of the check
    expect(`${human.stdout}${human.stderr}`).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);

    const json = setup(responses)('agent', 'chat', 'faux/demo', 'go', '--json');
    const events = json.stdout.trim().split('\n').map((line) => JSON.parse(line) as { type: string; delta?: { delta?: string } });
    expect(events.filter((event) => event.type === 'message_update').map((event) => event.delta?.delta ?? '').join('')).toContain(HOSTILE);
  });

  it('escapes bidirectional controls in config errors, so a key cannot hide or reorder the message', () => {
    const root = tempDir('xdog-e2e-human-');
    writeTree(root, { 'config.yaml': 'model: faux/demo\nfaux_\u202Etpircs: {}\n' });
    const result = runCli(['agent', 'chat', 'faux/demo', 'hi'], { env: { XDOG_CONFIG: path.join(root, 'config.yaml'), XDG_DATA_HOME: path.join(root, 'data') }, cwd: root });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('faux_\\u202etpircs');
    expect(result.stderr).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/);
  });

  it('a failing --json run ends with a one-line JSON error', () => {
    const failing = setup([{ error: 'boom' }])('agent', 'chat', 'faux/demo', 'hi', '--json', '--no-tools');
    expect(failing.status).toBe(1);
    const lines = failing.stdout.trim().split('\n');
    expect(JSON.parse(lines.at(-1)!)).toEqual({ error: { code: 'MODEL_FAILED', message: 'boom' } });
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();

    const unknown = setup([])('agent', 'chat', 'nope/model', 'hi', '--json');
    expect(unknown.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(unknown.stdout)).toMatchObject({ error: { code: 'MODEL_UNKNOWN' } });
  });
});
