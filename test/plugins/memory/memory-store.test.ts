/** Memory on a real claw store (SQLite and PostgreSQL): scoping, ranking, hostile queries, limits and the full-text index staying in sync. */
import { expect, it } from 'vitest';
import { XdogError } from '../../../core/index.js';
import { LIMITS } from '../../../core/limits.js';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { CLAW_ENTITIES, ClawInitial1764547200000, openClawDataSource, type ClawStoreLocation } from '../../../entities/index.js';
import { MemoryStore, memoryIndexFor } from '../../../plugins/memory/index.js';
import { openSessionStore } from '../../../plugins/sessions/index.js';
import { createTestDatabase, describeStores, type StoreKind } from '../../support/stores.js';
import { tempDir } from '../../support/temp.js';
import { openTestStoreOn, type TestStore } from '../sessions/helpers.js';

async function setup(kind: StoreKind): Promise<TestStore & { memory: MemoryStore }> {
  const opened = await openTestStoreOn(kind);
  for (const group of ['main', 'other']) await opened.store.ensureGroup(group);
  return { ...opened, memory: new MemoryStore({ store: opened.store, index: memoryIndexFor(opened.dataSource), clock: opened.clock }) };
}

async function rejection(promise: Promise<unknown>): Promise<XdogError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(XdogError.is(error), String(error)).toBe(true);
  return error as XdogError;
}

/** The index matches the memories table: FTS5's own integrity check; on PostgreSQL one up-to-date row per memory. */
async function expectIndexInSync(setup: TestStore): Promise<void> {
  if (setup.location.type === 'sqlite') {
    await setup.dataSource.query(`INSERT INTO claw_memories_fts(claw_memories_fts, rank) VALUES ('integrity-check', 1)`);
    return;
  }
  const stale = (await setup.dataSource.query(
    `SELECT m.id, f.memory_id FROM claw_memories m FULL JOIN claw_memories_fts f ON f.memory_id = m.id
     WHERE m.id IS NULL OR f.memory_id IS NULL OR f.text_doc <> to_tsvector('claw_memory', m.text) OR f.tags_doc <> to_tsvector('claw_memory', m.tags)`,
  )) as unknown[];
  expect(stale).toEqual([]);
}

/** The texts of `group`'s memories matching any of `words`, by the index's relevance alone (no phrase boost). */
async function byRelevanceAlone(setup: TestStore, words: string[]): Promise<string[]> {
  const rows = (await (setup.location.type === 'sqlite'
    ? setup.dataSource.query(
        `SELECT m.text FROM claw_memories_fts JOIN claw_memories m ON m.id = claw_memories_fts.rowid WHERE claw_memories_fts MATCH ? ORDER BY bm25(claw_memories_fts)`,
        [words.map((word) => `"${word}"`).join(' OR ')],
      )
    : setup.dataSource.query(
        `SELECT m.text FROM claw_memories_fts f JOIN claw_memories m ON m.id = f.memory_id, to_tsquery('claw_memory', $1) q
         WHERE f.text_doc @@ q ORDER BY ts_rank_cd(f.text_doc, q) DESC`,
        [words.join(' | ')],
      ))) as Array<{ text: string }>;
  return rows.map((row) => row.text);
}

/** The DataSource options of `location` with only the first migration, as a store made before memory existed. */
function beforeMemory(location: ClawStoreLocation): DataSourceOptions {
  const common = { entities: CLAW_ENTITIES, migrations: [ClawInitial1764547200000], migrationsTableName: 'claw_migrations' };
  return location.type === 'sqlite' ? { type: 'better-sqlite3', database: location.file, ...common } : { type: 'postgres', url: location.url, ...common };
}

const texts = (hits: Array<{ text: string }>) => hits.map((hit) => hit.text);

describeStores('MemoryStore', (kind) => {
  it("finds a group's memory by its words, never another group's", async () => {
    const s = await setup(kind);
    const { entry } = await s.memory.write('main', { text: 'The staging database is db2.internal', tags: ['DB', 'staging'], source: 'tool', sessionId: 's-1' });
    expect(entry).toMatchObject({ group: 'main', text: 'The staging database is db2.internal', tags: ['db', 'staging'], sessionId: 's-1', source: 'tool' });
    await s.memory.write('other', { text: 'The production database is db9.internal', source: 'user' });

    expect(texts(await s.memory.search('main', 'database'))).toEqual(['The staging database is db2.internal']);
    expect(texts(await s.memory.search('other', 'database'))).toEqual(['The production database is db9.internal']);
    expect(await s.memory.search('other', 'staging db2')).toEqual([]);
    // Tags are searchable; stemming finds other forms of a word; case does not matter.
    expect(texts(await s.memory.search('main', 'STAGING'))).toHaveLength(1);
    expect(texts(await s.memory.search('main', 'databases'))).toHaveLength(1);
    await expectIndexInSync(s);
  });

  it('ranks an exact phrase match first, even where bm25 alone ranks another memory higher', async () => {
    const s = await setup(kind);
    await s.memory.write('main', { text: 'key key key: deploy deploy deploy', source: 'user' });
    await s.memory.write('main', { text: 'The release checklist says the deploy key for production lives in the ops vault next to the backups', source: 'user' });
    await s.memory.write('main', { text: 'An unrelated note about lunch', source: 'user' });

    // Without the phrase boost, term frequency puts the repetitive memory first.
    expect((await byRelevanceAlone(s, ['deploy', 'key']))[0]).toBe('key key key: deploy deploy deploy');

    const hits = await s.memory.search('main', 'deploy key');
    expect(texts(hits)).toEqual(['The release checklist says the deploy key for production lives in the ops vault next to the backups', 'key key key: deploy deploy deploy']);
    expect(hits.map((hit) => hit.phrase)).toEqual([true, false]);
  });

  it('reads a hostile query as plain words: no FTS5 syntax, no SQL, no error', async () => {
    const s = await setup(kind);
    await s.memory.write('main', { text: 'Rotate the vault token every 30 days', tags: ['secrets'], source: 'user' });
    await s.memory.write('other', { text: 'other group vault', source: 'user' });
    for (const query of ['vault" OR "', 'tags:secrets', 'vault*', 'NEAR(vault token)', '^vault', "vault'); DROP TABLE claw_memories; --", '{text tags}: vault', 'vault AND NOT token']) {
      const hits = await s.memory.search('main', query);
      expect(texts(hits), query).toEqual(['Rotate the vault token every 30 days']);
    }
    // "OR", "AND", "NOT" and "NEAR" are words like any other, not operators.
    expect(await s.memory.search('main', 'NOT')).toEqual([]);
    expect((await rejection(s.memory.search('main', '"*" -- ()'))).code).toBe('INVALID_ARGUMENT');
    expect((await rejection(s.memory.search('main', 'x'.repeat(LIMITS.memoryQueryChars + 1)))).code).toBe('LIMIT_EXCEEDED');
    expect((await rejection(s.memory.search('main', Array.from({ length: LIMITS.memoryQueryTerms + 1 }, (_, i) => `w${i}`).join(' ')))).code).toBe('LIMIT_EXCEEDED');
  });

  it('bounds results: a default, a maximum, and an explicit limit', async () => {
    const s = await setup(kind);
    for (let i = 0; i < 30; i++) await s.memory.write('main', { text: `note ${i} about builds`, source: 'user' });
    expect(await s.memory.search('main', 'builds')).toHaveLength(8);
    expect(await s.memory.search('main', 'builds', 3)).toHaveLength(3);
    expect(await s.memory.search('main', 'builds', LIMITS.memorySearchResults)).toHaveLength(LIMITS.memorySearchResults);
    const over = await rejection(s.memory.search('main', 'builds', LIMITS.memorySearchResults + 1));
    expect(over.code).toBe('LIMIT_EXCEEDED');
    expect((await rejection(s.memory.search('main', 'builds', 0))).code).toBe('INVALID_ARGUMENT');
  });

  it('refuses bad input whole, writing nothing', async () => {
    const s = await setup(kind);
    const long = await rejection(s.memory.write('main', { text: 'x'.repeat(LIMITS.memoryEntryChars + 1), source: 'tool' }));
    expect(long.code).toBe('LIMIT_EXCEEDED');
    expect(long.message).toContain(String(LIMITS.memoryEntryChars));
    expect((await rejection(s.memory.write('main', { text: '   \n ', source: 'tool' }))).code).toBe('INVALID_ARGUMENT');
    expect((await rejection(s.memory.write('main', { text: 'hidden \u202e text', source: 'tool' }))).code).toBe('INVALID_ARGUMENT');
    expect((await rejection(s.memory.write('main', { text: 'ok', tags: ['two words'], source: 'tool' }))).code).toBe('INVALID_ARGUMENT');
    expect((await rejection(s.memory.write('main', { text: 'ok', tags: Array.from({ length: LIMITS.memoryTags + 1 }, (_, i) => `t${i}`), source: 'tool' }))).code).toBe('LIMIT_EXCEEDED');
    expect((await s.memory.list('main')).entries).toEqual([]);
    // Exactly at the limit is fine.
    await s.memory.write('main', { text: 'y'.repeat(LIMITS.memoryEntryChars), source: 'tool' });
  });

  it('keeps one copy of the same text per group', async () => {
    const s = await setup(kind);
    const first = await s.memory.write('main', { text: 'Use pnpm, not npm', source: 'tool' });
    const again = await s.memory.write('main', { text: '  Use pnpm, not npm\n', source: 'tool' });
    expect(again).toEqual({ entry: first.entry, duplicate: true });
    expect((await s.memory.write('other', { text: 'Use pnpm, not npm', source: 'tool' })).duplicate).toBe(false);
    expect((await s.memory.list('main')).entries).toHaveLength(1);
  });

  it('refuses a write past the per-group cap with a hint, and takes one again after a forget', async () => {
    const s = await setup(kind);
    // Filled in statements of many rows: one round trip per row is slow on PostgreSQL.
    const ROWS_PER_INSERT = 100;
    await s.store.withTransaction(async (sql) => {
      for (let first = 0; first < LIMITS.memoryEntriesPerGroup; first += ROWS_PER_INSERT) {
        const ids = Array.from({ length: Math.min(ROWS_PER_INSERT, LIMITS.memoryEntriesPerGroup - first) }, (_, i) => first + i);
        const values = ids.map((id) => `('main', :text${id}, '', NULL, 'user', 1)`).join(', ');
        await sql.run(`INSERT INTO claw_memories (group_name, text, tags, session_id, source, created_at) VALUES ${values}`, Object.fromEntries(ids.map((id) => [`text${id}`, `fact ${id}`])));
      }
    });
    const full = await rejection(s.memory.write('main', { text: 'one more fact', source: 'tool' }));
    expect(full.code).toBe('LIMIT_EXCEEDED');
    expect(full.message).toContain(`group main already keeps ${LIMITS.memoryEntriesPerGroup} memories`);
    expect(full.hint).toContain('xdog claw memory forget');
    expect(await s.memory.search('main', 'one more')).toHaveLength(0);
    // Another group is not affected.
    await s.memory.write('other', { text: 'one more fact', source: 'tool' });
    await s.memory.forget('main', 1);
    await s.memory.write('main', { text: 'one more fact', source: 'tool' });
    expect(texts(await s.memory.search('main', 'one more fact'))[0]).toBe('one more fact');
    await expectIndexInSync(s);
  });

  it("forgets only the group's own memory, and search no longer finds it", async () => {
    const s = await setup(kind);
    const mine = (await s.memory.write('main', { text: 'The printer is on floor 3', source: 'user' })).entry;
    const theirs = (await s.memory.write('other', { text: 'The printer is on floor 5', source: 'user' })).entry;
    const refused = await rejection(s.memory.forget('main', theirs.id));
    expect(refused.code).toBe('NOT_FOUND');
    expect(refused.message).toBe(`group main has no memory ${theirs.id}`);
    expect(texts(await s.memory.search('other', 'printer'))).toEqual(['The printer is on floor 5']);

    expect(await s.memory.forget('main', mine.id)).toEqual(mine);
    expect(await s.memory.search('main', 'printer')).toEqual([]);
    expect((await rejection(s.memory.forget('main', mine.id))).code).toBe('NOT_FOUND');
    // An id past the 32-bit range names no memory on either store (PostgreSQL would refuse the value).
    expect((await rejection(s.memory.forget('main', 2 ** 31))).code).toBe('INVALID_ARGUMENT');
    await expectIndexInSync(s);
  });

  it('a transaction that fails after inserting leaves neither the memory nor its index entry', async () => {
    const s = await setup(kind);
    await s.memory.write('main', { text: 'kept before the failure', source: 'user' });
    const failed = s.store.withTransaction(async (sql) => {
      await sql.run(`INSERT INTO claw_memories (group_name, text, tags, session_id, source, created_at) VALUES ('main', 'rolled back text', '', NULL, 'user', 1)`);
      throw new Error('failed midway');
    });
    await expect(failed).rejects.toThrow('failed midway');
    expect(await s.memory.search('main', 'rolled back')).toEqual([]);
    expect(texts((await s.memory.list('main')).entries)).toEqual(['kept before the failure']);
    await expectIndexInSync(s);
  });

  it('lists newest first in pages', async () => {
    const s = await setup(kind);
    for (let i = 1; i <= 5; i++) await s.memory.write('main', { text: `fact ${i}`, source: 'user' });
    await s.memory.write('other', { text: 'elsewhere', source: 'user' });
    const first = await s.memory.list('main', { limit: 2 });
    expect(texts(first.entries)).toEqual(['fact 5', 'fact 4']);
    const second = await s.memory.list('main', { limit: 2, before: first.nextBefore! });
    expect(texts(second.entries)).toEqual(['fact 3', 'fact 2']);
    const last = await s.memory.list('main', { limit: 2, before: second.nextBefore! });
    expect(last).toEqual({ entries: [expect.objectContaining({ text: 'fact 1' })], nextBefore: null });
    expect((await rejection(s.memory.list('main', { limit: LIMITS.memoryListPage + 1 }))).code).toBe('LIMIT_EXCEEDED');
  });

  it('keeps memories across a reopen of the store', async () => {
    const s = await setup(kind);
    await s.memory.write('main', { text: 'The on-call rota is in the wiki', source: 'tool' });
    await s.dataSource.destroy();
    const dataSource = await openClawDataSource(s.location);
    try {
      const memory = new MemoryStore({ store: openSessionStore(dataSource), index: memoryIndexFor(dataSource), clock: s.clock });
      expect(texts(await memory.search('main', 'on-call rota'))).toEqual(['The on-call rota is in the wiki']);
    } finally {
      await dataSource.destroy();
    }
  });

  it('comes to a store made before memory existed, which keeps its data', async () => {
    const database = kind === 'postgres' ? await createTestDatabase() : undefined;
    const location: ClawStoreLocation = database ? { type: 'postgres', url: database.url } : { type: 'sqlite', file: `${tempDir()}/claw.db` };
    const old = new DataSource(beforeMemory(location));
    await old.initialize();
    await old.runMigrations();
    await openSessionStore(old).ensureGroup('main');
    await old.destroy();

    const dataSource = await openClawDataSource(location);
    try {
      const memory = new MemoryStore({ store: openSessionStore(dataSource), index: memoryIndexFor(dataSource), clock: { now: () => 1 } });
      await memory.write('main', { text: 'written after the upgrade', source: 'user' });
      expect(texts(await memory.search('main', 'upgrade'))).toEqual(['written after the upgrade']);
    } finally {
      await dataSource.destroy();
      await database?.drop();
    }
  });

  it('runs beside the session store on its one connection without nesting transactions', async () => {
    const s = await setup(kind);
    // Interleaved: session-store writes and memory writes started together.
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        i % 2 ? s.memory.write('main', { text: `parallel fact ${i}`, source: 'tool' }) : s.store.createSession('main', { model: 'faux/demo' }),
      ),
    );
    expect((await s.memory.list('main')).entries).toHaveLength(10);
    expect(await s.store.listSessions('main')).toHaveLength(10);
    await expectIndexInSync(s);
  });
});

