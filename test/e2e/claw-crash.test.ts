/**
 * Scenario 12 for the claw store, on each store kind: `kill -9` of the
 * gateway at random points of streaming runs, tool calls and navigations, 20
 * times (8 on PostgreSQL, see KILLS). After each kill the store opens (on
 * SQLite integrity_check passes), holds every message a client saw committed,
 * and shows no half-applied navigation.
 */
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { readWholeTree } from '../../plugins/sessions/index.js';
import { collect, connect, startGateway, until, type ClawSandbox } from '../support/claw.js';
import { clawSandboxOn, describeStores, withSandboxStore, type StoreKind } from '../support/stores.js';

/**
 * Kills per store kind. SQLite's own file must survive every cut (integrity_check),
 * so it gets 20. On PostgreSQL the server, which is never killed, keeps the data and
 * rolls back a cut transaction when the killed gateway's connection drops: 8 rounds
 * show the same property, each action and both navigations at least twice.
 */
const KILLS: Record<StoreKind, number> = { sqlite: 20, postgres: 8 };


/** Checks the store after a crash: every acknowledged message is there, every pointer is whole. */
async function checkStore(sandbox: ClawSandbox, kind: StoreKind, acknowledged: ReadonlySet<string>): Promise<void> {
  await withSandboxStore(sandbox, kind, async (store) => {
    const group = await store.getGroup('main');
    const sessions = await store.listSessions('main', { includeArchived: true, limit: 200 });
    const stored = new Set<string>();
    const firstMessages = new Map<string, string[]>();
    for (const session of sessions) {
      const { entries } = await readWholeTree((next) => store.tree(session.id, { cursor: next?.cursor }));
      const ids = new Set(entries.map((entry) => entry.id));
      if (session.leafEntryId !== null) expect(ids.has(session.leafEntryId), `leaf of ${session.id} is one of its entries`).toBe(true);
      for (const entry of entries) if (entry.kind === 'message') stored.add(JSON.stringify(entry.payload.message));
      const path = (await store.path(session.id)).filter((entry) => entry.kind === 'message');
      firstMessages.set(session.id, path.slice(0, 2).map((entry) => JSON.stringify(entry.payload)));
    }
    if (group.activeSessionId) expect(sessions.map((session) => session.id)).toContain(group.activeSessionId);
    for (const message of acknowledged) expect(stored.has(message), `acknowledged message is stored: ${message.slice(0, 120)}`).toBe(true);
    // A fork is all or nothing: the forked session starts with its source's first two messages.
    for (const session of sessions.filter((candidate) => candidate.parentSessionId)) {
      const source = firstMessages.get(session.parentSessionId!);
      expect(firstMessages.get(session.id)).toEqual(source);
    }
  });
}

describeStores('claw store under kill -9', (kind) => {
  it(`holds every acknowledged entry and no half-applied navigation across ${KILLS[kind]} kills`, async () => {
    const sandbox = await clawSandboxOn(kind);
    const acknowledged = new Set<string>();
    const actions = ['long 400', 'run echo crash', 'tools', 'slow 0.3', 'hi'];
    for (let round = 0; round < KILLS[kind]; round++) {
      const gateway = await startGateway(sandbox);
      try {
        const client = await connect(sandbox, `round-${round}`);
        const events = collect(client, 'event');
        client.on('event', (params) => {
          if (params.event.type === 'message_end') acknowledged.add(JSON.stringify(params.event.message));
        });
        await client.call('subscribe', {});
        const status = await client.call('group.status', {});
        const work = (async () => {
          // Navigation first while idle (its transaction may be cut), then a streaming run.
          const show = status.activeSessionId ? await client.call('session.show', {}) : undefined;
          const valid = show?.checkpoints.filter((checkpoint: { valid: boolean }) => checkpoint.valid) ?? [];
          if (round % 3 === 1 && valid.length >= 2) await client.call('session.fork', { index: 2, expectedSessionId: status.activeSessionId });
          else if (round % 3 === 2 && valid.length >= 1) await client.call('session.goto', { index: valid[Math.floor(valid.length / 2)].index, expectedSessionId: status.activeSessionId });
          await client.call('prompt', { text: actions[round % actions.length]!, idempotencyKey: randomUUID() });
          await until(() => events.some((params) => params.event.type === 'agent_end'), 'the run to end', 10_000);
        })().catch(() => undefined);
        await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 400)));
        await gateway.kill9();
        await work;
        await client.close().catch(() => undefined);
      } finally {
        await gateway.kill9();
      }
      await checkStore(sandbox, kind, acknowledged);
    }
    expect(acknowledged.size).toBeGreaterThan(0);
  }, 600_000); // 20 gateway starts: on a loaded 2-core machine each takes over 10 s

  it('closes a tool call cut by a crash with an "interrupted" result, and the next prompt runs', async () => {
    const sandbox = await clawSandboxOn(kind);
    let gateway = await startGateway(sandbox);
    let client = await connect(sandbox);
    const events = collect(client, 'event');
    await client.call('subscribe', {});
    await client.call('prompt', { text: 'slow 30', idempotencyKey: randomUUID() });
    await until(() => events.some((params) => params.event.type === 'tool_start'), 'the tool to start');
    await gateway.kill9();
    await client.close().catch(() => undefined);

    gateway = await startGateway(sandbox);
    try {
      client = await connect(sandbox);
      const ends = collect(client, 'run.end');
      await client.call('subscribe', {});
      await client.call('prompt', { text: 'after the crash', idempotencyKey: randomUUID() });
      await until(() => ends.length === 1, 'the next run to end');
      expect(ends[0]).toMatchObject({ status: 'completed' });
      const request = sandbox.requests().at(-1)!;
      const roles = request.messages.map((message) => message.role);
      expect(roles).toEqual(['user', 'assistant', 'toolResult', 'user']);
      const result = request.messages[2]!;
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toMatch(/interrupted/);
      await client.close();
    } finally {
      await gateway.stop();
    }
  }, 120_000);
});
