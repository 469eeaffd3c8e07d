/**
 * Opens the claw store: the same entities and migrations on SQLite (the
 * default) or PostgreSQL (claw-postgres.ts). SQLite is better-sqlite3 with
 * WAL, `synchronous=FULL` (a committed transaction survives power loss),
 * foreign keys, a busy timeout and memory-mapped reads; the file is checked with
 * `PRAGMA integrity_check` before anything reads it: a damaged store is
 * refused with STORE_CORRUPT naming the file, never reset. Migrations run on
 * open, all in one transaction (on PostgreSQL under an advisory lock).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { DataSource, MigrationExecutor } from 'typeorm';
import { ErrorCodes, XdogError } from '../core/index.js';
import { LIMITS } from '../core/limits.js';
import { CLAW_ENTITIES } from './claw-entities.js';
import { connectPostgres, postgresOptions, withMigrationLock } from './claw-postgres.js';
import { describeClawStore, type ClawStoreLocation } from './claw-store-location.js';
import { CLAW_MIGRATIONS } from './migrations/1764547200000-claw-initial.js';
import { syncDirectory } from '../core/sync-directory.js';

/** Problems quoted from integrity_check before "and N more". */
const QUOTED_PROBLEMS = 3;

function corrupt(file: string, problem: string, cause?: unknown): XdogError {
  return new XdogError(ErrorCodes.STORE_CORRUPT, `the claw store ${file} is damaged: ${problem}`, {
    hint: `stop every gateway using it and restore ${file} from a backup (xdog never resets a damaged store); its -wal and -shm files belong with it`,
    cause,
  });
}

function isCorruption(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB');
}

/**
 * Creates the store's directory (0700) and, when the file is missing, a new
 * empty database (0600) already in WAL mode: it is built under a temporary
 * name and linked into place, so the store's path never holds a half-made
 * file (a crash leaves the old state: no file). An existing file is left as it
 * is; a zero-length one is refused (see refuseEmptyFile).
 */
function prepareFile(file: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  if (fs.existsSync(file)) return refuseEmptyFile(file);
  const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.new`;
  try {
    fs.closeSync(fs.openSync(temp, 'wx', 0o600));
    // Setting WAL writes the database header, so the new file is a database from its first byte.
    const db = new (loadSqlite())(temp);
    try {
      db.pragma('journal_mode = WAL');
    } finally {
      db.close();
    }
    const fd = fs.openSync(temp, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.linkSync(temp, file);
    syncDirectory(path.dirname(file));
  } catch (error) {
    // Another process created the store first: use its file.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${temp}${suffix}`, { force: true });
  }
}

/**
 * A zero-length store file without a WAL holds no database: xdog never makes
 * one (prepareFile), so it is damage (a truncated copy, a failed restore),
 * refused like any other, never taken for a new store.
 */
function refuseEmptyFile(file: string): void {
  if (fs.statSync(file).size > 0) return;
  const wal = fs.statSync(`${file}-wal`, { throwIfNoEntry: false });
  if (wal && wal.size > 0) return;
  throw new XdogError(ErrorCodes.STORE_CORRUPT, `the claw store ${file} is damaged: it is empty (0 bytes) and has no -wal file`, {
    hint: `restore ${file} from a backup; if a fresh, empty store is meant, remove the empty file and start again (xdog never resets a store itself)`,
  });
}

type SqliteConstructor = new (file: string) => RawSqlite;

/** better-sqlite3 (typeorm's SQLite driver), loaded only when a new store file is made. */
function loadSqlite(): SqliteConstructor {
  return createRequire(import.meta.url)('better-sqlite3') as SqliteConstructor;
}

/** The part of a better-sqlite3 connection used before typeorm takes it. */
interface RawSqlite {
  pragma(source: string): unknown;
  close(): void;
}

/** Pragmas and the integrity check, run on the raw connection before typeorm uses it. */
function prepareDatabase(file: string) {
  return (db: RawSqlite): void => {
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      db.pragma('foreign_keys = ON');
      // Before the check: it reads every page, and mapped pages are not copied into the page cache.
      db.pragma(`mmap_size = ${LIMITS.clawStoreMmapBytes}`);
      const rows = db.pragma('integrity_check') as { integrity_check: string }[];
      const problems = rows.map((row) => row.integrity_check).filter((text) => text !== 'ok');
      if (problems.length) {
        const more = problems.length > QUOTED_PROBLEMS ? ` (and ${problems.length - QUOTED_PROBLEMS} more)` : '';
        throw corrupt(file, `integrity_check found ${problems.slice(0, QUOTED_PROBLEMS).join('; ')}${more}`);
      }
    } catch (error) {
      db.close();
      if (XdogError.is(error)) throw error;
      if (isCorruption(error)) throw corrupt(file, (error as Error).message, error);
      throw error;
    }
  };
}

/** What both databases share: the claw entities and migrations, never `synchronize`. */
const COMMON = { entities: CLAW_ENTITIES, migrations: CLAW_MIGRATIONS, migrationsTableName: 'claw_migrations', synchronize: false, logging: false } as const;

/**
 * Brings an initialized claw store DataSource's schema up to date, all
 * pending migrations in one transaction. On PostgreSQL this holds an
 * advisory lock, so several workers opening one database at once migrate it
 * exactly once.
 */
export async function migrateClawStore(dataSource: DataSource, location = String(dataSource.options.type)): Promise<void> {
  if (dataSource.options.type !== 'postgres') {
    await dataSource.runMigrations({ transaction: 'all' });
    return;
  }
  const runner = dataSource.createQueryRunner();
  try {
    await runner.connect();
    await withMigrationLock(runner, location, async () => {
      const executor = new MigrationExecutor(dataSource, runner);
      executor.transaction = 'all';
      await executor.executePendingMigrations();
    });
  } finally {
    await runner.release();
  }
}

/**
 * Opens the claw store and brings its schema up to date. SQLite: creates the
 * file when missing; STORE_CORRUPT for a damaged file or one that is not a
 * database, UNAVAILABLE when it cannot be opened. PostgreSQL: UNAVAILABLE
 * (naming the URL without its password) when the server cannot be reached.
 */
export async function openClawDataSource(location: ClawStoreLocation): Promise<DataSource> {
  if (location.type === 'sqlite') return openSqlite(location.file);
  const dataSource = new DataSource({ ...postgresOptions(location), ...COMMON });
  await connectPostgres(dataSource, location);
  const where = describeClawStore(location);
  try {
    await migrateClawStore(dataSource, where);
  } catch (error) {
    await dataSource.destroy();
    if (XdogError.is(error)) throw error;
    throw new XdogError(ErrorCodes.UNAVAILABLE, `cannot migrate the claw store ${where}: ${(error as Error).message}`, { cause: error });
  }
  return dataSource;
}

async function openSqlite(location: string): Promise<DataSource> {
  const file = path.resolve(location);
  const dataSource = new DataSource({
    type: 'better-sqlite3',
    database: file,
    timeout: LIMITS.clawStoreLockWaitMs,
    prepareDatabase: prepareDatabase(file),
    ...COMMON,
  });
  try {
    prepareFile(file);
    await dataSource.initialize();
  } catch (error) {
    if (XdogError.is(error)) throw error;
    if (isCorruption(error)) throw corrupt(file, (error as Error).message, error);
    throw new XdogError(ErrorCodes.UNAVAILABLE, `cannot open the claw store ${file}: ${(error as Error).message}`, {
      hint: 'check that the directory exists and is writable by you',
      cause: error,
    });
  }
  try {
    await migrateClawStore(dataSource);
  } catch (error) {
    await dataSource.destroy();
    const cause = (error as { driverError?: unknown }).driverError ?? error;
    if (isCorruption(cause)) throw corrupt(file, (cause as Error).message, error);
    throw new XdogError(ErrorCodes.UNAVAILABLE, `cannot migrate the claw store ${file}: ${(error as Error).message}`, { cause: error });
  }
  return dataSource;
}
