/**
 * Atomicity: a failure in the middle of a multi-row change leaves the store
 * exactly as it was. The failure is injected inside the database (a trigger
 * that aborts one specific INSERT or UPDATE after earlier rows of the same
 * operation were written), so it strikes mid-transaction.
 */
import pg from 'pg';
import { expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import { XdogError } from '../../../core/index.js';
import { checkUsage } from '../../../plugins/sessions/index.js';
import { describeClawStore } from '../../../entities/index.js';
import { describeStores, openSqliteFile, type StoreKind } from '../../support/stores.js';
import { assistant, countRollbacks, msg, openTestStoreOn, sessionWith, user, type TestStore } from './helpers.js';

async function snapshot(dataSource: DataSource): Promise<unknown> {
  const tables = ['claw_groups', 'claw_sessions', 'claw_entries', 'claw_session_state', 'claw_usage', 'claw_input_keys', 'claw_group_leases'];
  const result: Record<string, unknown> = {};
  for (const table of tables) result[table] = await dataSource.query(`SELECT * FROM ${table} ORDER BY 1, 2`);
  return result;
}

/** A trigger that aborts the statements `event` names on `table` (when `condition` holds), in the store's own dialect. */
interface InjectedFailure {
  table: string;
  /** e.g. `INSERT`, `UPDATE OF active_session_id`. */
  event: string;
  /** A condition on NEW, the same text in both dialects. */
  condition?: string;
}

function injectSql(kind: StoreKind, failure: InjectedFailure): { create: string[]; drop: string[] } {
  if (kind === 'sqlite') {
    const when = failure.condition ? `WHEN ${failure.condition}` : '';
    return {
      create: [`CREATE TRIGGER injected_failure BEFORE ${failure.event} ON ${failure.table} ${when} BEGIN SELECT RAISE(ABORT, 'injected failure'); END`],
      drop: ['DROP TRIGGER injected_failure'],
    };
  }
  const when = failure.condition ? `WHEN (${failure.condition})` : '';
  return {
    create: [
      `CREATE OR REPLACE FUNCTION injected_failure() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected failure'; END $$`,
      `CREATE TRIGGER injected_failure BEFORE ${failure.event} ON ${failure.table} FOR EACH ROW ${when} EXECUTE FUNCTION injected_failure()`,
    ],
    drop: [`DROP TRIGGER injected_failure ON ${failure.table}`],
  };
}

async function expectUnchanged(kind: StoreKind, { dataSource, store }: TestStore, operation: () => Promise<unknown>, failure: InjectedFailure): Promise<void> {
  const { create, drop } = injectSql(kind, failure);
  for (const statement of create) await dataSource.query(statement);
  const before = await snapshot(dataSource);
  const error = await operation().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'the injected failure must surface').toBeDefined();
  expect(XdogError.is(error) ? error.message : String(error)).toMatch(/injected/);
  expect(await snapshot(dataSource)).toEqual(before);
  for (const statement of drop) await dataSource.query(statement);
  // the store still works afterwards
  expect((await store.listGroups()).length).toBeGreaterThan(0);
}

const failOnEntry = (marker: string): InjectedFailure => ({ table: 'claw_entries', event: 'INSERT', condition: `NEW.payload LIKE '%${marker}%'` });

describeStores('session store transactions', (kind) => {
  it('append: the third of three entries fails, none of them stays and the leaf does not move', async () => {
    const opened = await openTestStoreOn(kind);
    const { store } = opened;
    const id = await sessionWith(store, [msg(user('start'))]);
    await expectUnchanged(kind, opened, () => store.append(id, [msg(user('one')), msg(assistant('two')), msg(user('boom-3'))]), failOnEntry('boom-3'));
    expect((await store.context(id)).messages.length).toBe(1);
  });

  it('fork: copying fails midway through the path, no session, state or entry of the fork stays and the active session is unchanged', async () => {
    const opened = await openTestStoreOn(kind);
    const { store } = opened;
    const id = await sessionWith(store, [msg(user('a')), msg(assistant('b')), msg(user('copy-me')), msg(assistant('d'))]);
    await expectUnchanged(
      kind,
      opened,
      () => store.fork(id, 4, { expectedActiveSessionId: id }),
      { table: 'claw_entries', event: 'INSERT', condition: `NEW.session_id <> '${id}' AND NEW.payload LIKE '%copy-me%'` },
    );
  });

  it('compaction: the compaction entry fails after the recovery label was written, neither stays and the leaf does not move', async () => {
    const opened = await openTestStoreOn(kind);
    const { store } = opened;
    const id = await sessionWith(store, [msg(user('a')), msg(assistant('b')), msg(user('c')), msg(assistant('d'))]);
    const context = await store.context(id);
    await expectUnchanged(
      kind,
      opened,
      () => store.compact(id, { summary: 'boom-summary', firstKeptEntryId: context.entryIds[2]!, tokensBefore: 10, tokensAfter: 5, expectedLeafEntryId: context.session.leafEntryId }),
      failOnEntry('boom-summary'),
    );
    expect((await store.context(id)).compaction).toBeNull();
  });

  it('state change: the model_change entry fails, the state keeps its old model', async () => {
    const opened = await openTestStoreOn(kind);
    const { store } = opened;
    const id = await sessionWith(store, [msg(user('a'))]);
    await expectUnchanged(kind, opened, () => store.updateState(id, { model: 'faux/new', skills: ['x'] }), failOnEntry('faux/new'));
    expect((await store.getState(id)).model).toBe('faux/test');
  });

  it('closing interrupted calls: the second result fails, the first is not kept alone', async () => {
    const opened = await openTestStoreOn(kind);
    const { store } = opened;
    const id = await sessionWith(store, [msg(user('go')), msg(assistant('', [{ id: 'first', name: 'bash' }, { id: 'second', name: 'bash' }]))]);
    await expectUnchanged(kind, opened, () => store.closeInterruptedToolCalls(id), failOnEntry('"toolCallId":"second"'));
  });

  it('archive: clearing the active session fails, the session is not left archived', async () => {
    const opened = await openTestStoreOn(kind);
    const { store } = opened;
    const id = await sessionWith(store, [msg(user('a')), msg(assistant('b'))]);
    await expectUnchanged(
      kind,
      opened,
      () => store.archive(id),
      { table: 'claw_groups', event: 'UPDATE OF active_session_id' },
    );
  });

  it('concurrent operations: interleaved appends never nest or lose entries', async () => {
    const { store } = await openTestStoreOn(kind);
    const id = await sessionWith(store, []);
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.append(id, [msg(user(`u${i}`)), msg(assistant(`a${i}`))])));
    const path = await store.path(id);
    expect(path.length).toBe(40);
    expect((await store.getSession(id)).messageCount).toBe(40);
    // every entry's parent is the one before it: one chain, in order
    path.forEach((entry, i) => expect(entry.parentId).toBe(i === 0 ? null : path[i - 1]!.id));
  });

  it('a long transaction holds up other operations of the store on SQLite only (PostgreSQL runs them on the pool at once)', async () => {
    const { store } = await openTestStoreOn(kind);
    const id = await sessionWith(store, [msg(user('a'))]);
    const order: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const long = store.withTransaction(async () => {
      await gate;
      order.push('transaction');
    });
    const read = store.getSession(id).then(() => order.push('read'));
    if (kind === 'postgres') await read;
    else for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    release();
    await Promise.all([long, read]);
    expect(order).toEqual(kind === 'postgres' ? ['read', 'transaction'] : ['transaction', 'read']);
  });

  // PostgreSQL only: SQLite serves one gateway process (its lockfile), and two better-sqlite3
  // connections in one process block each other's event loop while one waits for the lock.
  it.runIf(kind === 'postgres')('two stores on one database appending to one session at once: every entry is kept, in one chain, on both', async () => {
    const first = await openTestStoreOn(kind);
    const second = await first.reopen();
    const id = await sessionWith(first.store, []);
    const appends = (test: TestStore, name: string) => Array.from({ length: 50 }, (_, i) => test.store.append(id, [msg(user(`${name}${i}`))]));
    await Promise.all([...appends(first, 'first'), ...appends(second, 'second')]);
    for (const test of [first, second]) {
      const path = await test.store.path(id);
      expect(path.length).toBe(100);
      path.forEach((entry, i) => expect(entry.parentId).toBe(i === 0 ? null : path[i - 1]!.id));
      expect((await test.store.getSession(id)).messageCount).toBe(100);
    }
  });

  // The hot path of every turn on every worker: before appends locked their session's row and
  // ran READ COMMITTED, SERIALIZABLE's predicate locks (a whole small table, or a shared index
  // page) made appends to different sessions fail each other, and under load ran out of retries.
  it.runIf(kind === 'postgres')('two stores appending to 30 sessions at once, each message with its usage row, never re-run a transaction', async () => {
    const first = await openTestStoreOn(kind);
    const second = await first.reopen();
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) ids.push(await sessionWith(first.store, []));
    let rollbacks = 0;
    for (const { dataSource } of [first, second]) countRollbacks(dataSource, () => rollbacks++);
    const usage = (sessionId: string) => checkUsage({ group: 'main', sessionId, model: 'faux/test', usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 }, cost: null, origin: { kind: 'prompt', id: null }, durationMs: 1, at: 1 });
    for (let round = 0; round < 3; round++) {
      await Promise.all(ids.flatMap((id) => [first, second].map((test, n) => test.store.append(id, [msg(assistant(`r${round}-${n}`))], { usage: usage(id) }))));
    }
    expect(rollbacks).toBe(0);
    for (const id of ids) {
      const path = await second.store.path(id);
      expect(path.length).toBe(6);
      path.forEach((entry, i) => expect(entry.parentId).toBe(i === 0 ? null : path[i - 1]!.id));
    }
    expect((await first.store.usageSummary({ group: 'main', by: 'group' }))[0]?.calls).toBe(180);
  });

  it('a write lock held by another process is BUSY after the lock timeout, naming the store; nothing is half-written', async () => {
    const { store, location } = await openTestStoreOn(kind);
    const id = await sessionWith(store, [msg(user('a'))]);
    const release = await holdWriteLock(location, id);
    try {
      const error = await store.append(id, [msg(user('b'))]).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(XdogError.is(error) && error.code).toBe('BUSY');
      expect((error as Error).message).toContain(describeClawStore(location));
    } finally {
      await release();
    }
    expect((await store.context(id)).messages.length).toBe(1);
    await store.append(id, [msg(user('b'))]);
    expect((await store.context(id)).messages.length).toBe(2);
  });
});

/** Another process's write lock: SQLite's database lock, or a PostgreSQL row lock on the session. Resolves to its release. */
async function holdWriteLock(location: TestStore['location'], sessionId: string): Promise<() => Promise<void>> {
  if (location.type === 'sqlite') {
    const other = openSqliteFile(location.file);
    other.exec('BEGIN IMMEDIATE');
    return async () => {
      other.exec('ROLLBACK');
      other.close();
    };
  }
  const other = new pg.Client({ connectionString: location.url });
  await other.connect();
  await other.query('BEGIN');
  await other.query('UPDATE claw_sessions SET updated_at = updated_at WHERE id = $1', [sessionId]);
  return async () => {
    await other.query('ROLLBACK');
    await other.end();
  };
}
