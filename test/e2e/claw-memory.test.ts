/**
 * Tool memory through a real gateway process: a fact a model writes in one
 * session is found by memory_search in a later session of the same group,
 * never from another group; the CLI adds, searches (exact phrase first),
 * lists and forgets through the gateway.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { GatewayConnection } from '../../plugins/claw-gateway/index.js';
import { collect, connect, startGateway, until, type ClawSandbox, type GatewayProcess } from '../support/claw.js';
import { runCli } from '../support/cli.js';
import { clawSandboxOn, describeStores, type StoreKind } from '../support/stores.js';

const MEMORY_TOOLS = 'enabled_tools: [bash, read, memory_write, memory_search, memory_forget]';

async function sandboxWithTwoGroups(kind: StoreKind): Promise<ClawSandbox> {
  const sandbox = await clawSandboxOn(kind);
  const otherWorkspace = path.join(sandbox.root, 'other-workspace');
  fs.mkdirSync(otherWorkspace);
  const config = fs.readFileSync(sandbox.configFile, 'utf8').replace('enabled_tools: [bash, read]', MEMORY_TOOLS);
  fs.writeFileSync(sandbox.configFile, `${config}    other:\n      workspace: ${otherWorkspace}\n      model: faux/demo\n      ${MEMORY_TOOLS}\n  default_group: main\n`);
  return sandbox;
}

/** The text of the last tool result the faux model saw. */
function lastToolResult(sandbox: ClawSandbox): string {
  const message = sandbox.requests().at(-1)!.messages.at(-1)!;
  expect(message.role).toBe('toolResult');
  return (message.content as Array<{ text: string }>).map((part) => part.text).join('');
}

describeStores('claw memory', (kind) => {
  let gateway: GatewayProcess | undefined;
  let client: GatewayConnection | undefined;
  afterEach(async () => {
    await client?.close();
    await gateway?.stop();
    client = gateway = undefined;
  });

  /** Prompts a group and waits for that run to end. */
  async function run(group: string, text: string, ends: Array<Record<string, any>>, key: string): Promise<{ sessionId: string; inputId: string }> {
    const receipt = (await client!.call('prompt', { group, text, idempotencyKey: key })) as { sessionId: string; inputId: string };
    // Input ids are per group.
    const ended = () => ends.find((end) => end.group === group && end.inputId === receipt.inputId);
    await until(() => ended() !== undefined, `the run of ${JSON.stringify(text)} in group ${group} to end`);
    expect(ended()!.status).toBe('completed');
    return receipt;
  }

  it('a fact written in one session is found in a later session of the same group, never from another group', async () => {
    const sandbox = await sandboxWithTwoGroups(kind);
    gateway = await startGateway(sandbox);
    client = await connect(sandbox);
    expect(client.hello.capabilities).toContain('memory:1');
    const ends = collect(client, 'run.end');
    await client.call('subscribe', { group: 'main' });
    await client.call('subscribe', { group: 'other' });

    const fact = 'The deploy key lives in vault path secret/deploy';
    const first = await run('main', `callj memory_write ${JSON.stringify({ text: fact, tags: ['deploy'] })}`, ends, 'w1');
    expect(lastToolResult(sandbox)).toBe('Saved as memory #1.');

    const fresh = (await client.call('session.new', { group: 'main', expectedSessionId: first.sessionId })) as { id: string };
    const later = await run('main', 'callj memory_search {"query":"deploy key"}', ends, 's1');
    expect(later.sessionId).toBe(fresh.id);
    expect(later.sessionId).not.toBe(first.sessionId);
    expect(lastToolResult(sandbox)).toMatch(new RegExp(`^#1 \\d{4}-\\d\\d-\\d\\d \\[deploy\\] ${fact}$`));

    await run('other', 'callj memory_search {"query":"deploy key"}', ends, 'o1');
    expect(lastToolResult(sandbox)).toBe('No memory matches "deploy key".');
    await run('other', 'callj memory_forget {"id":1}', ends, 'o2');
    expect(lastToolResult(sandbox)).toMatch(/^Error: group other has no memory 1 /);

    // The memory remembers the session that wrote it, and is still there.
    const listed = await client.callService('memory.list', { group: 'main' });
    expect(listed).toEqual({ group: 'main', nextBefore: null, entries: [expect.objectContaining({ id: 1, text: fact, sessionId: first.sessionId, source: 'tool' })] });
    expect(await client.callService('memory.list', { group: 'other' })).toEqual({ group: 'other', entries: [], nextBefore: null });
  });

  it('the CLI adds, searches with the exact phrase first, lists and forgets through the gateway', async () => {
    const sandbox = await sandboxWithTwoGroups(kind);
    gateway = await startGateway(sandbox);
    client = await connect(sandbox);
    const cli = (...args: string[]) => runCli(['claw', 'memory', ...args], { env: sandbox.env, cwd: sandbox.root });

    const facts = [
      'key key key: deploy deploy deploy',
      'The release checklist says the deploy key for production lives in the ops vault',
      'Lunch is at noon',
    ];
    for (const [index, fact] of facts.entries()) {
      const added = cli('add', fact, '--tag', 'notes');
      expect(added.status, added.stderr).toBe(0);
      expect(added.stdout).toBe(`saved memory #${index + 1} in group main\n`);
    }
    expect(cli('add', facts[2]!).stdout).toBe('group main already has this memory: #3\n');
    const other = await client.callService('memory.add', { group: 'other', text: 'Only the other group knows the deploy key' });
    expect(other).toMatchObject({ duplicate: false, entry: { id: 4, group: 'other', source: 'user', sessionId: null } });

    const searched = cli('search', 'deploy key', '--json');
    expect(searched.status, searched.stderr).toBe(0);
    const found = JSON.parse(searched.stdout) as { group: string; results: Array<{ id: number; phrase: boolean }> };
    expect(found.group).toBe('main');
    expect(found.results.map((hit) => [hit.id, hit.phrase])).toEqual([
      [2, true],
      [1, false],
    ]);
    const human = cli('search', 'deploy key');
    expect(human.stdout.split('\n')[0]).toMatch(/^#2 \d{4}-\d\d-\d\d \[notes\] The release checklist/);

    expect(cli('list', '--limit', '2').stdout).toMatch(/^#3 .*Lunch is at noon\n#2 .*\nmore: xdog claw memory list --group main --before 2\n$/);

    const forgot = cli('forget', '2');
    expect(forgot.stdout).toMatch(/^forgot memory of group main: #2 /);
    expect((await client.callService('memory.search', { query: 'deploy key' })).results.map((hit: { id: number }) => hit.id)).toEqual([1]);

    const wrongGroup = cli('forget', '4');
    expect(wrongGroup.status).not.toBe(0);
    expect(wrongGroup.stderr).toBe('xdog: group main has no memory 4 [NOT_FOUND] (list its memories with `xdog claw memory list --group main`)\n');
    await expect(client.callService('memory.search', { query: '"*" ()' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('no words to look for') });
    await expect(client.callService('memory.add', { text: 'x'.repeat(4001) })).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED', message: expect.stringContaining('4001 characters') });
    await expect(client.callService('memory.add', { text: 'ok', extra: 1 })).rejects.toThrow(/memory\.add: invalid params/);
  }, 120_000);

  it('the memory flush before a compaction logs a memory_write the read-only scope blocked as refused, not as saved', async () => {
    const sandbox = await clawSandboxOn(kind, '      compaction:\n        keep_recent_tokens: 5\n');
    fs.writeFileSync(sandbox.configFile, fs.readFileSync(sandbox.configFile, 'utf8').replace('enabled_tools: [bash, read]', MEMORY_TOOLS));
    gateway = await startGateway(sandbox);
    const claw = (...args: string[]) => runCli(['claw', ...args], { env: sandbox.env, cwd: sandbox.root });
    for (const text of ['one', 'two', 'three']) expect(claw('send', text).status).toBe(0);
    expect(claw('readonly', 'on').status).toBe(0);
    const compacted = claw('compact');
    expect(compacted.status, compacted.stderr).toBe(0);
    await until(() => gateway!.log().includes('memory flush'), 'the memory flush in the gateway log');
    expect(gateway.log()).toMatch(/memory flush completed: 0 memory_write calls saved, 1 refused or failed \(.*the read-only scope is on: "memory_write" is not allowed/);
    client = await connect(sandbox);
    expect(await client.callService('memory.list', {})).toMatchObject({ entries: [] });
  });
});

