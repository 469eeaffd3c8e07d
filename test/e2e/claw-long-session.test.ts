/**
 * Long and heavy sessions through the built CLI and a real gateway: a session
 * of 3,000 tool calls (6,001 entries in one chain) and one whose entries
 * together are several frames of JSON. `sessions tree` and `sessions show`
 * answer, and the gateway keeps serving afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../core/index.js';
import type { EntryInput } from '../../plugins/sessions/index.js';
import { runCliAsync, type CliResult } from '../support/cli.js';
import { connect, startGateway, type ClawSandbox, type GatewayProcess } from '../support/claw.js';
import { clawSandboxOn, withSandboxStore } from '../support/stores.js';
import { assistant, msg, toolResult, user } from '../plugins/sessions/helpers.js';

const TOOL_CALLS = 3000;

let sandbox: ClawSandbox;
let gateway: GatewayProcess;

beforeAll(async () => {
  sandbox = await clawSandboxOn('sqlite');
  gateway = await startGateway(sandbox);
}, 60_000);

afterAll(async () => {
  await gateway?.stop();
});

const claw = (...args: string[]): Promise<CliResult> => runCliAsync(['claw', ...args], { env: sandbox.env, cwd: sandbox.root });
async function json(...args: string[]): Promise<any> {
  const result = await claw(...args, '--json');
  if (result.status !== 0) throw new Error(`xdog claw ${args.join(' ')} exited ${result.status}: ${result.stderr}${result.stdout}\n${gateway.log()}`);
  return JSON.parse(result.stdout);
}

/** A new session of `entries` appended in one transaction; returns its id. */
async function seed(entries: EntryInput[]): Promise<string> {
  return withSandboxStore(sandbox, 'sqlite', async (store) => {
    const session = await store.createSession('main', { model: 'faux/demo' });
    await store.append(session.id, entries);
    return session.id;
  });
}

/** The gateway is alive and serves a fresh connection. */
async function stillServes(): Promise<void> {
  expect(gateway.child.exitCode, `the gateway exited:\n${gateway.log()}`).toBeNull();
  const client = await connect(sandbox, 'after');
  try {
    expect((await client.call('gateway.status', {})).pid).toBe(gateway.child.pid);
  } finally {
    await client.close();
  }
}

describe('a session of 3,000 tool calls', { timeout: 300_000 }, () => {
  it('answers `sessions tree` and `sessions show` through the CLI, and the gateway still serves', async () => {
    const entries: EntryInput[] = [msg(user('start the long job'))];
    for (let i = 0; i < TOOL_CALLS; i++) {
      entries.push(msg(assistant('', [{ id: `call-${i}`, name: 'bash' }])), msg(toolResult(`call-${i}`, 'bash', `step ${i} done`)));
    }
    const id = await seed(entries);

    const tree = await json('sessions', 'tree', id);
    expect(tree.sessionId).toBe(id);
    expect(tree.entries).toHaveLength(entries.length);
    // Flat: every entry names its parent, the chain is whole, all of it is on the path.
    expect(tree.entries[0]).toMatchObject({ parentId: null, kind: 'message', onPath: true });
    for (let i = 1; i < tree.entries.length; i++) expect(tree.entries[i].parentId).toBe(tree.entries[i - 1].id);
    expect(tree.entries.every((entry: { onPath: boolean; children?: unknown }) => entry.onPath && entry.children === undefined)).toBe(true);
    expect(tree.leafEntryId).toBe(tree.entries.at(-1).id);

    const text = await claw('sessions', 'tree', id);
    expect(text.stderr).toBe('');
    expect(text.status).toBe(0);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(entries.length);
    expect(lines[0]).toMatch(/^\* \d+ user: start the long job$/);
    // A chain of single children stays at one indentation however long it is.
    expect(lines.every((line) => line.startsWith('* '))).toBe(true);
    expect(lines.at(-1)).toMatch(/toolResult: step 2999 done {2}<- leaf$/);

    const show = await json('sessions', 'show', id);
    expect(show.session).toMatchObject({ id, messageCount: entries.length });
    expect(show.checkpoints).toHaveLength(entries.length);
    const shown = await claw('sessions', 'show', id);
    expect(shown.status).toBe(0);
    expect(shown.stdout).toContain('step 2999 done');

    await stillServes();
  });

  it('reads a tree whose entries together are several frames of JSON in pages, with branches, and the gateway still serves', async () => {
    // 48 × 512 KiB: three frames' worth; one answer holding all of it is over the frame limit.
    const big = 'x'.repeat(512 * 1024);
    const count = Math.ceil((3 * LIMITS.clawFrameBytes) / big.length);
    const entries: EntryInput[] = [];
    for (let i = 0; i < count; i++) entries.push(msg(user(`${i} ${big}`)), msg(assistant(`answer ${i}`)));
    const id = await seed(entries);
    // A second branch from the first answer: the tree forks there.
    const branchFrom = await withSandboxStore(sandbox, 'sqlite', async (store) => {
      const path = await store.path(id);
      const second = path[1]!.id;
      await store.branch(id, second);
      await store.append(id, [msg(user('another way')), msg(assistant('other answer'))]);
      return second;
    });

    const tree = await json('sessions', 'tree', id);
    expect(tree.entries).toHaveLength(entries.length + 2);
    const fork = tree.entries.filter((entry: { parentId: number | null }) => entry.parentId === branchFrom);
    expect(fork.map((entry: { onPath: boolean }) => entry.onPath)).toEqual([false, true]);
    expect(tree.entries.at(-1).payload.message.content).toEqual([{ type: 'text', text: 'other answer' }]);
    expect(tree.entries[0].payload.message.content).toBe(`0 ${big}`);

    const text = await claw('sessions', 'tree', id);
    expect(text.status).toBe(0);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(entries.length + 2);
    // The fork indents its two branches; the one on the path ends at the leaf.
    expect(lines.filter((line) => line.startsWith('  '))).toHaveLength(entries.length - 2 + 2);
    expect(lines.at(-1)).toMatch(/^ {2}\* \d+ assistant: other answer {2}<- leaf$/);

    await stillServes();
  });
});
