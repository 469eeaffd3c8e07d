/** `xdog agent chat` opens the installed capabilities (Flow) unless --no-tools, and its agent can call the flow tool. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, runCli } from '../support/cli.js';
import { tempDir, writeTree } from '../support/temp.js';

interface LoggedRequest {
  messages: Array<{ role: string; toolName?: string; isError?: boolean; content: Array<{ type: string; text?: string }> | string }>;
  tools: Array<{ name: string }>;
}

function setup(responses: unknown[]) {
  const root = tempDir('xdog-flow-chat-');
  writeTree(root, { 'script.json': { responses } });
  fs.mkdirSync(path.join(root, 'work'));
  fs.copyFileSync(path.join(repoRoot, 'docs/examples/flows/topic-digest.yaml'), path.join(root, 'work', 'digest.yaml'));
  const env = {
    XDG_CONFIG_HOME: path.join(root, 'config'),
    XDG_DATA_HOME: path.join(root, 'data'),
    XDOG_CONFIG: '',
    XDOG_FAUX_SCRIPT: path.join(root, 'script.json'),
    XDOG_FAUX_LOG: path.join(root, 'requests.jsonl'),
  };
  const requests = (): LoggedRequest[] => fs.readFileSync(env.XDOG_FAUX_LOG, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as LoggedRequest);
  return { env, cwd: path.join(root, 'work'), requests };
}

describe('xdog agent chat with capabilities', () => {
  it('gives the agent the flow and skill tools; the model validates a flow and loads the flow skill', () => {
    const { env, cwd, requests } = setup([
      { toolCalls: [{ name: 'skill', arguments: { action: 'load', slug: 'flow' } }, { name: 'flow', arguments: { action: 'validate', file: 'digest.yaml' } }] },
      { text: 'The flow is valid.' },
    ]);
    const result = runCli(['agent', 'chat', 'faux/demo', 'check digest.yaml', '--cwd', cwd], { env, cwd });
    expect(result.status).toBe(0);
    expect(result.stdout).toBe('The flow is valid.\n');
    const [first, second] = requests();
    expect(first!.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['current_time', 'flow', 'skill']));
    const results = second!.messages.filter((m) => m.role === 'toolResult');
    expect(results.map((m) => [m.toolName, m.isError])).toEqual([['skill', false], ['flow', false]]);
    expect(JSON.stringify(results[0]!.content)).toContain('Flow is xdog');
    expect(JSON.stringify(results[1]!.content)).toContain('flow \\"topic-digest\\" is valid: 3 step(s)');
  });

  it('--no-tools opens no capability: zero tool definitions', () => {
    const { env, cwd, requests } = setup([{ text: 'hello' }]);
    const result = runCli(['agent', 'chat', 'faux/demo', 'hi', '--no-tools'], { env, cwd });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(requests()[0]!.tools).toEqual([]);
  });
});
