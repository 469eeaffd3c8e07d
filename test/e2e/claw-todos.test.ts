/**
 * Todos through a real gateway process and the built CLI, on the scripted
 * faux model: the model's todo_write is saved for the session (an over-limit
 * list is a tool error and changes nothing), subscribers get todos.changed,
 * `xdog claw status` and `xdog claw todos --json` show it, and it survives a
 * gateway restart and a compaction, whose summary keeps the open items.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../core/limits.js';
import type { GatewayConnection } from '../../plugins/claw-gateway/index.js';
import { collect, connect, startGateway, until, watch, type ClawSandbox, type GatewayProcess } from '../support/claw.js';
import { runCli, type CliResult } from '../support/cli.js';
import { clawSandboxOn, describeStores } from '../support/stores.js';

const TODOS = [
  { text: 'read the notes', status: 'done' },
  { text: 'rewrite them', status: 'in_progress' },
  { text: 'ship it', status: 'pending' },
];

describeStores('claw todos', (kind) => {
  let sandbox: ClawSandbox;
  let gateway: GatewayProcess | undefined;

  const claw = (...args: string[]): CliResult => runCli(['claw', ...args], { env: sandbox.env, cwd: sandbox.root });
  const json = (...args: string[]): any => {
    const result = claw(...args, '--json');
    if (result.status !== 0) throw new Error(`xdog claw ${args.join(' ')} exited ${result.status}: ${result.stderr}${result.stdout}`);
    return JSON.parse(result.stdout);
  };
  const send = (text: string): void => {
    const result = claw('send', text);
    if (result.status !== 0) throw new Error(`send ${text} failed: ${result.stderr}`);
  };
  const toolResults = () => {
    const messages = sandbox.requests().at(-1)!.messages;
    const lastUser = messages.map((message) => message.role).lastIndexOf('user');
    return messages.slice(lastUser + 1).filter((message) => message.role === 'toolResult');
  };
  const textOf = (message: { content: unknown }): string =>
    typeof message.content === 'string' ? message.content : (message.content as Array<{ text?: string }>).map((part) => part.text ?? '').join('');

  /** One run of `calls` on a connection that watches the group, with the todos.changed it announced. */
  async function promptCalls(calls: unknown[], key: string): Promise<Array<Record<string, any>>> {
    const client: GatewayConnection = await connect(sandbox);
    try {
      const changed = collect(client, 'todos.changed');
      const { ends } = await watch(client);
      await client.call('prompt', { text: `calls ${JSON.stringify(calls)}`, idempotencyKey: key });
      await until(() => ends.length === 1, 'the run to end');
      return changed;
    } finally {
      await client.close();
    }
  }

  beforeAll(async () => {
    // Keep almost nothing verbatim, so a few short turns are enough to compact.
    sandbox = await clawSandboxOn(kind, '      compaction:\n        keep_recent_tokens: 5\n');
    const config = sandbox.configFile;
    fs.writeFileSync(config, fs.readFileSync(config, 'utf8').replace('enabled_tools: [bash, read]', 'enabled_tools: [bash, read, todo_write, todo_read]'));
    gateway = await startGateway(sandbox, 120_000);
  }, 180_000);

  afterAll(async () => {
    await gateway?.stop();
  });

  describe('the model keeps its todo list', { timeout: 300_000 }, () => {
    it('saves what todo_write sends, announces it, and shows it in claw todos and claw status', async () => {
      const changed = await promptCalls([{ name: 'todo_write', arguments: { todos: TODOS } }], 't1');
      const [write] = toolResults();
      expect(write).toMatchObject({ isError: false });
      expect(textOf(write!)).toContain('todos 1/3 done · now: rewrite them');
      await until(() => changed.length === 1, 'todos.changed');
      expect(changed[0]).toMatchObject({ group: 'main', items: TODOS, revision: 1, summary: 'todos 1/3 done · now: rewrite them' });

      const view = json('todos');
      expect(view).toMatchObject({ group: 'main', items: TODOS, revision: 1, done: 1, open: 2, summary: 'todos 1/3 done · now: rewrite them' });
      expect(view.sessionId).toBe(json('status').groups[0].activeSessionId);
      expect(claw('todos').stdout).toContain('1. [x] read the notes\n2. [>] rewrite them\n3. [ ] ship it');
      const status = claw('status');
      expect(status.status).toBe(0);
      expect(status.stdout).toContain('main: todos 1/3 done · now: rewrite them');
      expect(json('status').todos).toEqual([{ group: 'main', summary: 'todos 1/3 done · now: rewrite them' }]);
    });

    it('refuses a list over the limit as a tool error and keeps the saved one', async () => {
      const tooMany = Array.from({ length: LIMITS.todoItems + 1 }, (_, index) => ({ text: `step ${index}`, status: 'pending' }));
      await promptCalls([{ name: 'todo_write', arguments: { todos: tooMany } }, { name: 'todo_read', arguments: {} }], 't2');
      const [write, read] = toolResults();
      expect(write).toMatchObject({ isError: true });
      expect(textOf(write!)).toContain(`over the limit of ${LIMITS.todoItems} (todoItems); nothing was saved`);
      expect(read).toMatchObject({ isError: false });
      expect(textOf(read!)).toContain('todos 1/3 done · now: rewrite them');
      expect(json('todos')).toMatchObject({ items: TODOS, revision: 1 });
    });

    it('survives a gateway restart', async () => {
      await gateway!.stop();
      gateway = await startGateway(sandbox, 120_000);
      expect(json('todos')).toMatchObject({ items: TODOS, revision: 1 });
      expect(claw('status').stdout).toContain('main: todos 1/3 done · now: rewrite them');
    });

    it('survives a compaction, whose summary keeps the open items for the model', async () => {
      for (const text of ['one', 'two']) send(text);
      const receipt = json('compact');
      expect(receipt).toMatchObject({ status: 'compacted' });
      const note = 'Open todos (2 of 3; the full list is kept, todo_read shows it):\n- [>] rewrite them\n- [ ] ship it';
      expect(receipt.summary).toMatch(/^SUMMARY of \d+ user messages: /);
      expect(receipt.summary.endsWith(`\n\n${note}`)).toBe(true);
      send('three');
      const first = sandbox.requests().at(-1)!.messages[0]!;
      expect(textOf(first)).toContain(note);
      expect(json('todos')).toMatchObject({ items: TODOS, revision: 1 });
    });
  });
});
