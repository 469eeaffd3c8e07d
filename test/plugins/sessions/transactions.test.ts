/**
 * Atomicity: a failure in the middle of a multi-row change leaves the store
 * exactly as it was. The failure is injected inside the database (a trigger
 * that aborts one specific INSERT or UPDATE after earlier rows of the same
 * operation were written), so it strikes mid-transaction.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import { XdogError } from '../../../core/index.js';
import type { SessionStore } from '../../../plugins/sessions/index.js';
import { assistant, msg, openTestStore, sessionWith, user } from './helpers.js';

async function snapshot(dataSource: DataSource): Promise<unknown> {
  const tables = ['claw_groups', 'claw_sessions', 'claw_entries', 'claw_session_state', 'claw_usage', 'claw_input_keys', 'claw_group_leases'];
  const result: Record<string, unknown> = {};
  for (const table of tables) result[table] = await dataSource.query(`SELECT * FROM ${table} ORDER BY 1, 2`);
  return result;
}

async function expectUnchanged(dataSource: DataSource, store: SessionStore, operation: () => Promise<unknown>, trigger: string): Promise<void> {
  await dataSource.query(trigger);
  const before = await snapshot(dataSource);
  const error = await operation().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'the injected failure must surface').toBeDefined();
  expect(XdogError.is(error) ? error.message : String(error)).toMatch(/injected/);
  expect(await snapshot(dataSource)).toEqual(before);
  await dataSource.query('DROP TRIGGER injected_failure');
  // the store still works afterwards
  expect((await store.listGroups()).length).toBeGreaterThan(0);
}

const failOnEntry = (marker: string) => `
  CREATE TRIGGER injected_failure BEFORE INSERT ON claw_entries
  WHEN NEW.payload LIKE '%${marker}%' BEGIN SELECT RAISE(ABORT, 'injected failure'); END`;

describe('session store transactions', () => {
  it('append: the third of three entries fails, none of them stays and the leaf does not move', async () => {
    const { store, dataSource } = await openTestStore();
    const id = await sessionWith(store, [msg(user('start'))]);
    await expectUnchanged(dataSource, store, () => store.append(id, [msg(user('one')), msg(assistant('two')), msg(user('boom-3'))]), failOnEntry('boom-3'));
    expect((await store.context(id)).messages.length).toBe(1);
  });

  it('fork: copying fails midway through the path, no session, state or entry of the fork stays and the active session is unchanged', async () => {
    const { store, dataSource } = await openTestStore();
    const id = await sessionWith(store, [msg(user('a')), msg(assistant('b')), msg(user('copy-me')), msg(assistant('d'))]);
    await expectUnchanged(
      dataSource,
      store,
      () => store.fork(id, 4, { expectedActiveSessionId: id }),
      `CREATE TRIGGER injected_failure BEFORE INSERT ON claw_entries
       WHEN NEW.session_id <> '${id}' AND NEW.payload LIKE '%copy-me%' BEGIN SELECT RAISE(ABORT, 'injected failure'); END`,
    );
  });

  it('compaction: the compaction entry fails after the recovery label was written, neither stays and the leaf does not move', async () => {
    const { store, dataSource } = await openTestStore();
    const id = await sessionWith(store, [msg(user('a')), msg(assistant('b')), msg(user('c')), msg(assistant('d'))]);
    const context = await store.context(id);
    await expectUnchanged(
      dataSource,
      store,
      () => store.compact(id, { summary: 'boom-summary', firstKeptEntryId: context.entryIds[2]!, tokensBefore: 10, tokensAfter: 5, expectedLeafEntryId: context.session.leafEntryId }),
      failOnEntry('boom-summary'),
    );
    expect((await store.context(id)).compaction).toBeNull();
  });

  it('state change: the model_change entry fails, the state keeps its old model', async () => {
    const { store, dataSource } = await openTestStore();
    const id = await sessionWith(store, [msg(user('a'))]);
    await expectUnchanged(dataSource, store, () => store.updateState(id, { model: 'faux/new', skills: ['x'] }), failOnEntry('faux/new'));
    expect((await store.getState(id)).model).toBe('faux/test');
  });

  it('closing interrupted calls: the second result fails, the first is not kept alone', async () => {
    const { store, dataSource } = await openTestStore();
    const id = await sessionWith(store, [msg(user('go')), msg(assistant('', [{ id: 'first', name: 'bash' }, { id: 'second', name: 'bash' }]))]);
    await expectUnchanged(dataSource, store, () => store.closeInterruptedToolCalls(id), failOnEntry('"toolCallId":"second"'));
  });

  it('archive: clearing the active session fails, the session is not left archived', async () => {
    const { store, dataSource } = await openTestStore();
    const id = await sessionWith(store, [msg(user('a')), msg(assistant('b'))]);
    await expectUnchanged(
      dataSource,
      store,
      () => store.archive(id),
      `CREATE TRIGGER injected_failure BEFORE UPDATE OF active_session_id ON claw_groups BEGIN SELECT RAISE(ABORT, 'injected failure'); END`,
    );
  });

  it('serializes concurrent operations: interleaved appends never nest or lose entries', async () => {
    const { store } = await openTestStore();
    const id = await sessionWith(store, []);
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.append(id, [msg(user(`u${i}`)), msg(assistant(`a${i}`))])));
    const path = await store.path(id);
    expect(path.length).toBe(40);
    expect((await store.getSession(id)).messageCount).toBe(40);
    // every entry's parent is the one before it: one chain, in order
    path.forEach((entry, i) => expect(entry.parentId).toBe(i === 0 ? null : path[i - 1]!.id));
  });

  it('a write lock held by another process is BUSY after the busy timeout, naming the store; nothing is half-written', async () => {
    const { store, file } = await openTestStore();
    const id = await sessionWith(store, [msg(user('a'))]);
    const Database = createRequire(import.meta.url)('better-sqlite3') as new (file: string) => { exec(sql: string): void; close(): void };
    const other = new Database(file);
    other.exec('BEGIN IMMEDIATE');
    try {
      const error = await store.append(id, [msg(user('b'))]).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(XdogError.is(error) && error.code).toBe('BUSY');
      expect((error as Error).message).toContain(file);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    expect((await store.context(id)).messages.length).toBe(1);
    await store.append(id, [msg(user('b'))]);
    expect((await store.context(id)).messages.length).toBe(2);
  });
});
