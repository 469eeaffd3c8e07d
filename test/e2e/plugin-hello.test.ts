/**
 * A third-party plugin end to end: the example package is installed into the
 * user plugin directory, and the built CLI's agent calls its `hello` tool.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, runCli } from '../support/cli.js';
import { tempDir, writeTree } from '../support/temp.js';

describe('example plugin xdog-plugin-hello through the CLI', { timeout: 120_000 }, () => {
  it('is installed, contributes its tool to `xdog agent chat`, and the tool result reaches the model', () => {
    const root = tempDir('xdog-e2e-hello-');
    writeTree(root, {
      'script.json': { responses: [{ toolCalls: [{ name: 'hello', arguments: { name: 'Ada' } }] }, { text: 'I greeted Ada.' }] },
      'work/.keep': '',
    });
    const env = {
      XDG_CONFIG_HOME: path.join(root, 'config'),
      XDG_DATA_HOME: path.join(root, 'data'),
      XDOG_FAUX_SCRIPT: path.join(root, 'script.json'),
      XDOG_FAUX_LOG: path.join(root, 'requests.jsonl'),
    };
    const cwd = path.join(root, 'work');

    const install = runCli(['plugins', 'install', path.join(repoRoot, 'docs/examples/xdog-plugin-hello')], { env, cwd });
    expect(install.status).toBe(0);

    const chat = runCli(['agent', 'chat', 'faux/demo', 'say hello to Ada'], { env, cwd });
    expect(chat.stderr).toContain('[tool] hello {"name":"Ada"}');
    expect(chat.status).toBe(0);
    expect(chat.stdout).toBe('I greeted Ada.\n');

    const requests = fs.readFileSync(env.XDOG_FAUX_LOG, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { tools: Array<{ name: string }>; messages: unknown[] });
    expect(requests[0]!.tools.map((tool) => tool.name)).toContain('hello');
    expect(requests[1]!.messages.at(-1)).toMatchObject({ role: 'toolResult', toolName: 'hello', content: [{ type: 'text', text: 'Hello, Ada!' }], isError: false });
  });
});
