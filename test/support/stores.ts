/**
 * The stores the claw suites run on: SQLite always, PostgreSQL when
 * XDOG_TEST_PG_URL names a server (.ci/run starts a throwaway one and sets it;
 * under CI a missing URL fails instead of silently skipping). Each test that
 * wants PostgreSQL gets a fresh database of its own on that server.
 */
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { DataSource } from 'typeorm';
import { afterAll, describe } from 'vitest';
import { openClawDataSource, type ClawStoreLocation } from '../../entities/index.js';
import { openSessionStore, type SessionStore } from '../../plugins/sessions/index.js';
import { clawSandbox, type ClawSandbox } from './claw.js';
import { tempDir } from './temp.js';

export type StoreKind = 'sqlite' | 'postgres';

/** The environment variable a PostgreSQL sandbox's config names in `claw.store.url_env`. */
export const SANDBOX_PG_ENV = 'XDOG_CLAW_PG_URL';

/** The admin URL of the test server, if there is one. */
export function testPgUrl(): string | undefined {
  const url = process.env.XDOG_TEST_PG_URL;
  if (!url && process.env.CI) throw new Error('XDOG_TEST_PG_URL is not set under CI: .ci/run starts a PostgreSQL server and sets it');
  return url || undefined;
}

/** The stores to run a claw suite on. */
export function storeKinds(): StoreKind[] {
  return testPgUrl() ? ['sqlite', 'postgres'] : ['sqlite'];
}

/** Databases clawSandboxOn made since the last sweep; describeStores drops them after its block. */
const madeDatabases: TestDatabase[] = [];

/**
 * One `describe` per store kind, titled with the kind; `body` gets the kind.
 * The PostgreSQL block drops the databases its sandboxes made once it is done.
 */
export function describeStores(title: string, body: (kind: StoreKind) => void): void {
  for (const kind of storeKinds()) {
    describe(`${title} [${kind}]`, () => {
      if (kind === 'postgres') afterAll(() => Promise.all(madeDatabases.splice(0).map((database) => database.drop())).then(() => undefined));
      body(kind);
    });
  }
}

export interface TestDatabase {
  url: string;
  name: string;
  /** Drops the database (its connections are closed first). */
  drop(): Promise<void>;
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const url = testPgUrl();
  if (!url) throw new Error('no PostgreSQL test server: set XDOG_TEST_PG_URL (see test/support/pg-server.sh)');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A new, empty database on the test server. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `xdog_t_${randomBytes(6).toString('hex')}`;
  await admin((client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(testPgUrl()!);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () => admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

/**
 * A claw sandbox (see clawSandbox) whose store is of `kind`: for PostgreSQL a
 * fresh database, named by `claw.store: {type: postgres, url_env: XDOG_CLAW_PG_URL}`
 * in its config and the URL in its environment.
 */
export async function clawSandboxOn(kind: StoreKind, extraConfig = ''): Promise<ClawSandbox & { database?: TestDatabase }> {
  const sandbox = clawSandbox(extraConfig);
  if (kind === 'sqlite') return sandbox;
  const database = await createTestDatabase();
  madeDatabases.push(database);
  const config = fs.readFileSync(sandbox.configFile, 'utf8');
  fs.writeFileSync(sandbox.configFile, config.replace(/^claw:\n/, `claw:\n  store:\n    type: postgres\n    url_env: ${SANDBOX_PG_ENV}\n`));
  sandbox.env[SANDBOX_PG_ENV] = database.url;
  return { ...sandbox, database };
}

export interface TestDataSource {
  dataSource: DataSource;
  location: ClawStoreLocation;
  /** Closes the DataSource (if still open) and drops the PostgreSQL database it made. */
  close(): Promise<void>;
}

/**
 * Migrated PostgreSQL databases a closed test store left empty, for the next
 * test of this file: creating, migrating and dropping a database per test
 * costs most of a second, emptying one a tenth of that. Dropped after the file.
 */
const spareDatabases: TestDatabase[] = [];
afterAll(async () => {
  for (const database of spareDatabases.splice(0)) await database.drop();
});

/** Empties a test database's claw tables for reuse; false (nothing done) when a test left triggers of its own or a lock. */
async function emptyForReuse(database: TestDatabase): Promise<boolean> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    await client.query("SET lock_timeout = '2s'");
    const own = await client.query("SELECT 1 FROM pg_trigger WHERE NOT tgisinternal AND left(tgname, 5) <> 'claw_' LIMIT 1");
    if (own.rowCount) return false;
    const tables = await client.query<{ tablename: string }>("SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'claw_migrations'");
    await client.query(`TRUNCATE ${tables.rows.map((row) => `"${row.tablename}"`).join(', ')} RESTART IDENTITY CASCADE`);
    return true;
  } catch {
    return false;
  } finally {
    await client.end();
  }
}

/**
 * The claw store (migrated) on a fresh SQLite file or an empty PostgreSQL
 * database. `location` opens the same store again (a second DataSource).
 */
export async function openTestDataSource(kind: StoreKind): Promise<TestDataSource> {
  if (kind === 'sqlite') {
    const location: ClawStoreLocation = { type: 'sqlite', file: path.join(tempDir(), 'claw', 'claw.db') };
    const dataSource = await openClawDataSource(location);
    return {
      dataSource,
      location,
      close: async () => {
        if (dataSource.isInitialized) await dataSource.destroy();
      },
    };
  }
  const database = spareDatabases.pop() ?? (await createTestDatabase());
  const location: ClawStoreLocation = { type: 'postgres', url: database.url };
  const dataSource = await openClawDataSource(location);
  return {
    dataSource,
    location,
    close: async () => {
      if (dataSource.isInitialized) await dataSource.destroy();
      if (await emptyForReuse(database)) spareDatabases.push(database);
      else await database.drop();
    },
  };
}

/** The store a sandbox's gateway uses. */
export function sandboxStore(sandbox: ClawSandbox, kind: StoreKind): ClawStoreLocation {
  return kind === 'sqlite' ? { type: 'sqlite', file: sandbox.storeFile } : { type: 'postgres', url: sandbox.env[SANDBOX_PG_ENV]! };
}

/** Opens the sandbox's store beside its gateway (a second connection), for `use`, then closes it. */
export async function withSandboxStore<T>(sandbox: ClawSandbox, kind: StoreKind, use: (store: SessionStore) => Promise<T>): Promise<T> {
  const dataSource = await openClawDataSource(sandboxStore(sandbox, kind));
  const store = await openSessionStore(dataSource);
  try {
    return await use(store);
  } finally {
    await store.close();
    await dataSource.destroy();
  }
}

/** A SQLite store file opened from outside the gateway (better-sqlite3 ships no types; these are the calls tests use). */
export interface SqliteFile {
  exec(sql: string): void;
  prepare(sql: string): { all(): unknown[] };
  close(): void;
}

export function openSqliteFile(file: string): SqliteFile {
  const Database = createRequire(import.meta.url)('better-sqlite3') as new (file: string) => SqliteFile;
  return new Database(file);
}
