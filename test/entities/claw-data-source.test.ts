import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import { XdogError } from '../../core/index.js';
import { clawStoreLocation, defaultClawStoreFile, openClawDataSource } from '../../entities/index.js';
import { tempDir } from '../support/temp.js';

const open: DataSource[] = [];
afterEach(async () => {
  for (const dataSource of open.splice(0)) if (dataSource.isInitialized) await dataSource.destroy();
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

describe('openClawDataSource', () => {
  it('creates a private directory and file, runs the migrations on an empty file, and sets the durability pragmas', async () => {
    const dir = path.join(tempDir(), 'claw');
    const file = path.join(dir, 'claw.db');
    const dataSource = await openStore(file);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const tables = (await dataSource.query(`SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'claw_%' ORDER BY name`)) as { name: string }[];
    expect(tables.map((t) => t.name)).toEqual([
      'claw_access_scopes',
      'claw_channel_state',
      'claw_child_inputs',
      'claw_child_transcript_chunks',
      'claw_child_usage',
      'claw_children',
      'claw_entries',
      'claw_group_leases',
      'claw_groups',
      'claw_input_keys',
      'claw_memories',
      'claw_memories_fts',
      'claw_memories_fts_config',
      'claw_memories_fts_data',
      'claw_memories_fts_docsize',
      'claw_memories_fts_idx',
      'claw_migrations',
      'claw_reset_state',
      'claw_runs',
      'claw_schedule_jobs',
      'claw_schedule_runs',
      'claw_session_state',
      'claw_sessions',
      'claw_turn_skills',
      'claw_usage',
    ]);
    expect(await dataSource.query('PRAGMA journal_mode')).toEqual([{ journal_mode: 'wal' }]);
    expect(await dataSource.query('PRAGMA synchronous')).toEqual([{ synchronous: 2 }]);
    expect(await dataSource.query('PRAGMA foreign_keys')).toEqual([{ foreign_keys: 1 }]);
  });

  it('builds exactly the schema the entities describe (no synchronize needed)', async () => {
    const dataSource = await openStore(path.join(tempDir(), 'claw.db'));
    const pending = await dataSource.driver.createSchemaBuilder().log();
    expect(pending.upQueries.map((q) => q.query)).toEqual([]);
  });

  it('is idempotent on reopen: the migration runs once and data stays', async () => {
    const file = path.join(tempDir(), 'claw.db');
    const first = await openStore(file);
    await first.query(`INSERT INTO claw_groups (name, active_session_id, revision, created_at) VALUES ('main', NULL, 0, 1)`);
    await first.destroy();
    const second = await openStore(file);
    expect(await second.query('SELECT name FROM claw_migrations ORDER BY id')).toEqual([{ name: 'ClawInitial1764547200000' }, { name: 'ClawScheduler1764720000000' }, { name: 'ClawAccess1764806400000' }, { name: 'ClawMemories1764892800000' }, { name: 'ClawChildren1764990000000' }, { name: 'ClawChannels1765017600000' }, { name: 'ClawTurnSkills1765180800000' }, { name: 'ClawRuns1765400000000' }]);
    expect(await second.query('SELECT name FROM claw_groups')).toEqual([{ name: 'main' }]);
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
