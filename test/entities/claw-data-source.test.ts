import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import { ClawStoreSchema, LIMITS, XdogError } from '../../core/index.js';
import { clawStoreLocation, defaultClawStoreFile, describeClawStore, openClawDataSource, type ClawStoreLocation } from '../../entities/index.js';
import { createTestDatabase, describeStores, openTestDataSource, type TestDatabase } from '../support/stores.js';
import { tempDir } from '../support/temp.js';

const open: DataSource[] = [];
const databases: TestDatabase[] = [];
afterEach(async () => {
  for (const dataSource of open.splice(0)) if (dataSource.isInitialized) await dataSource.destroy();
  for (const database of databases.splice(0)) await database.drop();
});

const MIGRATIONS = [
  'ClawInitial1764547200000',
  'ClawScheduler1764720000000',
  'ClawAccess1764806400000',
  'ClawMemories1764892800000',
  'ClawChildren1764990000000',
  'ClawChannels1765017600000',
  'ClawTurnSkills1765180800000',
  'ClawWorkers1765300000000',
  'ClawRuns1765400000000',
  'ClawTodos1765500000000',
  'ClawApprovals1765600000000',
  'ClawGoals1765700000000',
  'ClawApprovalRules1766200000000',
  'ClawChildQueue1766250000000',
  'ClawChildArchives1766300000000',
];

/** A fresh, empty location of the kind (a new database on PostgreSQL, dropped after the test). */
async function emptyLocation(kind: 'sqlite' | 'postgres'): Promise<ClawStoreLocation> {
  if (kind === 'sqlite') return { type: 'sqlite', file: path.join(tempDir(), 'claw.db') };
  const database = await createTestDatabase();
  databases.push(database);
  return { type: 'postgres', url: database.url };
}

async function openAt(location: ClawStoreLocation): Promise<DataSource> {
  const dataSource = await openClawDataSource(location);
  open.push(dataSource);
  return dataSource;
}

describeStores('the claw store', (kind) => {
  it('builds exactly the schema the entities describe (no synchronize needed)', async () => {
    const opened = await openTestDataSource(kind);
    try {
      const pending = await opened.dataSource.driver.createSchemaBuilder().log();
      expect(pending.upQueries.map((q) => q.query)).toEqual([]);
    } finally {
      await opened.close();
    }
  });

  it('is idempotent on reopen: each migration runs once and data stays', async () => {
    const location = await emptyLocation(kind);
    const first = await openAt(location);
    await first.query(`INSERT INTO claw_groups (name, active_session_id, revision, created_at) VALUES ('main', NULL, 0, 1)`);
    await first.destroy();
    const second = await openAt(location);
    expect(await second.query('SELECT name FROM claw_migrations ORDER BY id')).toEqual(MIGRATIONS.map((name) => ({ name })));
    expect(await second.query('SELECT name FROM claw_groups')).toEqual([{ name: 'main' }]);
  });

  it('reads counts and bigint columns as numbers', async () => {
    const opened = await openTestDataSource(kind);
    try {
      await opened.dataSource.query(`INSERT INTO claw_groups (name, active_session_id, revision, created_at) VALUES ('main', NULL, 0, 1764547200123)`);
      expect(await opened.dataSource.query('SELECT COUNT(*) AS n, SUM(created_at) AS total, MAX(created_at) AS newest FROM claw_groups')).toEqual([
        { n: 1, total: 1764547200123, newest: 1764547200123 },
      ]);
    } finally {
      await opened.close();
    }
  });
});

async function openStore(file: string): Promise<DataSource> {
  const dataSource = await openClawDataSource({ type: 'sqlite', file });
  open.push(dataSource);
  return dataSource;
}

async function refusal(file: string): Promise<XdogError> {
  const error = await openClawDataSource({ type: 'sqlite', file }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(XdogError.is(error)).toBe(true);
  return error as XdogError;
}

describe('the claw store on SQLite', () => {
  it('creates a private directory and file, runs the migrations on an empty file, and sets the durability pragmas', async () => {
    const dir = path.join(tempDir(), 'claw');
    const file = path.join(dir, 'claw.db');
    const dataSource = await openStore(file);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const tables = (await dataSource.query(`SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'claw_%' ORDER BY name`)) as { name: string }[];
    expect(tables.map((t) => t.name)).toEqual([
      'claw_access_scopes',
      'claw_approval_rules',
      'claw_approvals',
      'claw_channel_state',
      'claw_child_compaction_archives',
      'claw_child_inputs',
      'claw_child_transcript_chunks',
      'claw_child_usage',
      'claw_children',
      'claw_entries',
      'claw_goals',
      'claw_group_leases',
      'claw_groups',
      'claw_handoffs',
      'claw_input_keys',
      'claw_memories',
      'claw_memories_fts',
      'claw_memories_fts_config',
      'claw_memories_fts_data',
      'claw_memories_fts_docsize',
      'claw_memories_fts_idx',
      'claw_migrations',
      'claw_relay_events',
      'claw_relay_interest',
      'claw_reset_state',
      'claw_runs',
      'claw_schedule_jobs',
      'claw_schedule_runs',
      'claw_session_state',
      'claw_sessions',
      'claw_todos',
      'claw_turn_skills',
      'claw_usage',
      'claw_workers',
    ]);
    expect(await dataSource.query('PRAGMA journal_mode')).toEqual([{ journal_mode: 'wal' }]);
    expect(await dataSource.query('PRAGMA synchronous')).toEqual([{ synchronous: 2 }]);
    expect(await dataSource.query('PRAGMA foreign_keys')).toEqual([{ foreign_keys: 1 }]);
    // Memory-mapped reads: the open's integrity check and a long session's first read skip the page copies.
    expect(await dataSource.query('PRAGMA mmap_size')).toEqual([{ mmap_size: LIMITS.clawStoreMmapBytes }]);
  });

  it('refuses a file that is not a database, naming it, and leaves it as it was', async () => {
    const file = path.join(tempDir(), 'claw.db');
    const text = 'these are my notes, not a database\n'.repeat(200);
    fs.writeFileSync(file, text);
    const error = await refusal(file);
    expect(error.code).toBe('STORE_CORRUPT');
    expect(error.message).toContain(file);
    expect(error.hint).toMatch(/restore .* from a backup/);
    expect(fs.readFileSync(file, 'utf8')).toBe(text);
  });

  it('refuses a database whose pages were overwritten (integrity_check), naming the file, never resetting it', async () => {
    const file = path.join(tempDir(), 'claw.db');
    const dataSource = await openStore(file);
    await dataSource.query(`INSERT INTO claw_groups (name, active_session_id, revision, created_at) VALUES ('main', NULL, 0, 1)`);
    await dataSource.query(`INSERT INTO claw_sessions (id, group_name, archived, message_count, created_at, updated_at) VALUES ('s', 'main', 0, 0, 1, 1)`);
    for (let i = 0; i < 400; i++) {
      await dataSource.query(`INSERT INTO claw_entries (session_id, parent_id, kind, payload, created_at) VALUES ('s', NULL, 'custom', ?, 1)`, [`{"data":"${'x'.repeat(200)}${i}"}`]);
    }
    await dataSource.destroy();
    const pageSize = 4096;
    const pages = fs.statSync(file).size / pageSize;
    expect(pages).toBeGreaterThan(10);
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, Buffer.alloc(pageSize, 0xa5), 0, pageSize, Math.floor(pages / 2) * pageSize);
    fs.closeSync(fd);
    const damaged = fs.readFileSync(file);
    const error = await refusal(file);
    expect(error.code).toBe('STORE_CORRUPT');
    expect(error.message).toContain(file);
    expect(fs.readFileSync(file).equals(damaged)).toBe(true);
  });

  it('refuses a zero-length file without a WAL as damaged (never a new store), with the hint to remove it for a fresh one', async () => {
    const file = path.join(tempDir(), 'claw.db');
    fs.writeFileSync(file, '');
    const error = await refusal(file);
    expect(error.code).toBe('STORE_CORRUPT');
    expect(error.message).toContain(file);
    expect(error.message).toContain('empty');
    expect(error.hint).toContain('remove the empty file');
    expect(fs.statSync(file).size).toBe(0);
    expect(fs.existsSync(`${file}-wal`)).toBe(false);
    // An empty leftover WAL does not make it a store either.
    fs.writeFileSync(`${file}-wal`, '');
    expect((await refusal(file)).code).toBe('STORE_CORRUPT');
  });

  it('makes a new store file in one step: a database from its first byte, with no temporary file left beside it', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'claw.db');
    await (await openStore(file)).destroy();
    expect(fs.readFileSync(file).subarray(0, 15).toString('latin1')).toBe('SQLite format 3');
    expect(fs.readdirSync(dir).filter((name) => !/^claw\.db(-wal|-shm)?$/.test(name))).toEqual([]);
    // reopening the store it made is not "damaged"
    await openStore(file);
  });

  it('defaults to $XDG_DATA_HOME/xdog/claw/claw.db and resolves a configured path', () => {
    const saved = process.env.XDG_DATA_HOME;
    process.env.XDG_DATA_HOME = '/data';
    try {
      expect(defaultClawStoreFile()).toBe('/data/xdog/claw/claw.db');
      expect(clawStoreLocation(undefined)).toEqual({ type: 'sqlite', file: '/data/xdog/claw/claw.db' });
      expect(clawStoreLocation({ type: 'sqlite', path: '/srv/claw.db' })).toEqual({ type: 'sqlite', file: '/srv/claw.db' });
    } finally {
      if (saved === undefined) delete process.env.XDG_DATA_HOME;
      else process.env.XDG_DATA_HOME = saved;
    }
  });
});

describeStores('the claw store, several processes at once', (kind) => {
  it.runIf(kind === 'postgres')('three workers opening a fresh database at once all succeed and migrate it exactly once', async () => {
    const location = await emptyLocation(kind);
    const opened = await Promise.all([openAt(location), openAt(location), openAt(location)]);
    expect(opened).toHaveLength(3);
    expect(await opened[0]!.query('SELECT name FROM claw_migrations ORDER BY id')).toEqual(MIGRATIONS.map((name) => ({ name })));
  });
});

describe('the claw store location', () => {
  const url = 'postgres://xdog:s3cret-pw@db.example:6543/claw';

  it('takes a PostgreSQL URL from the variable claw.store.url_env names, and shows it without the password', () => {
    const location = clawStoreLocation({ type: 'postgres', url_env: 'CLAW_DB' }, { CLAW_DB: url });
    expect(location).toEqual({ type: 'postgres', url, urlEnv: 'CLAW_DB' });
    expect(describeClawStore(location)).toBe('postgres://xdog@db.example:6543/claw');
    expect(describeClawStore({ type: 'postgres', url: 'postgresql://db.example/claw' })).toBe('postgres://db.example:5432/claw');
  });

  it('refuses a missing, empty or invalid URL with CONFIG_INVALID naming claw.store.url_env and the variable', () => {
    for (const env of [{}, { CLAW_DB: '' }, { CLAW_DB: 'mysql://u:p@h/db' }, { CLAW_DB: 'postgres://host-without-db' }, { CLAW_DB: 'not a url s3cret-pw' }]) {
      let error: unknown;
      try {
        clawStoreLocation({ type: 'postgres', url_env: 'CLAW_DB' }, env);
      } catch (caught) {
        error = caught;
      }
      expect(XdogError.is(error) && error.code, JSON.stringify(env)).toBe('CONFIG_INVALID');
      expect((error as XdogError).message).toContain('claw.store.url_env');
      expect((error as XdogError).message).toContain('CLAW_DB');
      expect((error as XdogError).hint).toContain('CLAW_DB=postgres://');
      expect(`${(error as XdogError).message} ${(error as XdogError).hint}`).not.toContain('s3cret-pw');
    }
  });

  it('accepts the postgres form of claw.store in config, and nothing else in it', () => {
    expect(ClawStoreSchema.parse({ type: 'postgres', url_env: 'XDOG_CLAW_PG_URL' })).toEqual({ type: 'postgres', url_env: 'XDOG_CLAW_PG_URL' });
    expect(ClawStoreSchema.safeParse({ type: 'postgres', url: url }).success).toBe(false);
    expect(ClawStoreSchema.safeParse({ type: 'postgres', url_env: 'not a name' }).success).toBe(false);
  });

  it('an unreachable server is UNAVAILABLE naming the URL without its password, with a hint', async () => {
    const error = await openClawDataSource({ type: 'postgres', url: 'postgres://xdog:s3cret-pw@127.0.0.1:1/claw', urlEnv: 'CLAW_DB' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(XdogError.is(error) && error.code).toBe('UNAVAILABLE');
    expect((error as XdogError).message).toContain('postgres://xdog@127.0.0.1:1/claw');
    expect((error as XdogError).hint).toContain('CLAW_DB');
    expect(`${(error as XdogError).message} ${(error as XdogError).hint}`).not.toContain('s3cret-pw');
  });
});
