/**
 * Child agents in `xdog agent chat`: a parent spawns two read-only children
 * that each grep the workspace, waits for both and answers with their
 * results; the faux log shows each child's requests apart from the
 * parent's. A read-only child's write is denied.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, runCli } from '../support/cli.js';
import { tempDir, writeTree } from '../support/temp.js';

interface LoggedRequest {
  systemPrompt?: string;
  messages: Array<{ role: string; content: unknown }>;
  tools: Array<{ name: string }>;
}

function setup() {
  const root = tempDir('xdog-e2e-children-');
  writeTree(root, { 'work/a.txt': 'alpha one\n', 'work/b.txt': 'beta two\nbeta three\n' });
  const env = {
    XDG_CONFIG_HOME: path.join(root, 'config'),
    XDG_DATA_HOME: path.join(root, 'data'),
    XDOG_FAUX_SCRIPT: path.join(repoRoot, 'test/fixtures/children-model.mjs'),
    XDOG_FAUX_LOG: path.join(root, 'requests.jsonl'),
  };
  const requests = (): LoggedRequest[] => fs.readFileSync(env.XDOG_FAUX_LOG, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as LoggedRequest);
  return { env, cwd: path.join(root, 'work'), requests };
}

const isChild = (request: LoggedRequest) => (request.systemPrompt ?? '').includes('child agent');
const firstUser = (request: LoggedRequest) => String(request.messages.find((message) => message.role === 'user')!.content);

describe('xdog agent chat with child agents (faux model)', { timeout: 120_000 }, () => {
  it('spawns two read-only children that grep, waits for both and answers with their results', () => {
    const { env, cwd, requests } = setup();
    const result = runCli(['agent', 'chat', 'faux/demo', 'delegate alpha beta', '--cwd', cwd], { env, cwd });
    expect(result.stderr).toContain('[tool] agent');
    expect(result.status).toBe(0);
    expect(result.stdout).toBe('alpha (completed): found 1 line(s): a.txt:1: alpha one\nbeta (completed): found 2 line(s): b.txt:1: beta two\nb.txt:2: beta three\n');

    const all = requests();
    const parent = all.filter((request) => !isChild(request));
    const children = all.filter(isChild);
    expect(parent).toHaveLength(3);
    expect(parent[0]!.tools.map((tool) => tool.name)).toContain('agent');
    // Each child: its own task, two requests (grep, then its answer), only read tools, never `agent`.
    expect(children.map(firstUser).sort()).toEqual(['grep for alpha', 'grep for alpha', 'grep for beta', 'grep for beta']);
    for (const child of children) expect(child.tools.map((tool) => tool.name)).toEqual(['read', 'ls', 'grep', 'find', 'current_time']);
    expect(children.some((child) => JSON.stringify(child.messages).includes('delegate'))).toBe(false);
  });

  it("starts a child with inherit_context from the parent's conversation, up to the prompt that spawned it", () => {
    const { env, cwd, requests } = setup();
    const result = runCli(['agent', 'chat', 'faux/demo', 'recall this prompt', '--cwd', cwd], { env, cwd });
    expect(result).toMatchObject({ status: 0, stdout: 'recall (completed): recalled "recall this prompt" (2 messages)\n' });
    const child = requests().filter(isChild).at(-1)!;
    expect(child.messages.map((message) => [message.role, message.content])).toEqual([
      ['user', 'recall this prompt'],
      ['user', 'recall'],
    ]);
  });

  it('refuses to start with an invalid child_presets catalog, naming the key', () => {
    const { env, cwd } = setup();
    fs.mkdirSync(path.join(env.XDG_CONFIG_HOME, 'xdog'), { recursive: true });
    fs.writeFileSync(path.join(env.XDG_CONFIG_HOME, 'xdog', 'config.yaml'), 'child_presets:\n  scout: { max_model_calls: many }\n');
    const result = runCli(['agent', 'chat', 'faux/demo', 'delegate alpha', '--cwd', cwd], { env, cwd });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/^xdog: child_presets\.scout\.max_model_calls: .* \[CONFIG_INVALID\] \(fix child_presets in the config file/);
  });

  it("denies a read-only child's write and reports it to the parent", () => {
    const { env, cwd, requests } = setup();
    const result = runCli(['agent', 'chat', 'faux/demo', 'delegate !pwned.txt', '--cwd', cwd], { env, cwd });
    expect(result.status).toBe(0);
    expect(fs.existsSync(path.join(cwd, 'pwned.txt'))).toBe(false);
    const child = requests().filter(isChild).at(-1)!;
    const denied = child.messages.find((message) => message.role === 'toolResult')!;
    expect(JSON.stringify(denied.content)).toContain(`Tool \\"write\\" is not available`);
    expect(result.stdout).toMatch(/^!pwned\.txt \(completed\): found 1 line\(s\): /);
  });
});
