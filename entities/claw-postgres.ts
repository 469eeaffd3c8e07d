/**
 * The claw store on PostgreSQL: a typeorm DataSource with a bounded pool and
 * a connect timeout, whose int8 and numeric values come back as JS numbers
 * (the store works in epoch-ms and counts far below 2^53), set here for this
 * pool only so other pg users in the process (pg-boss) keep pg's defaults.
 */
import { createRequire } from 'node:module';
import type pg from 'pg';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { ErrorCodes, XdogError } from '../core/index.js';
import { LIMITS } from '../core/limits.js';
import { describeClawStore, type ClawStoreLocation } from './claw-store-location.js';

// pg is loaded on first use, so a gateway on SQLite never pays for loading it.
const requirePg = createRequire(import.meta.url);
const pgTypes = (): typeof pg.types => (requirePg('pg') as typeof pg).types;

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/** pg's parsers, except int8 (COUNT(*), bigint columns) and numeric (SUM of bigint) as numbers. */
const clawTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary'): (value: string) => unknown {
    if ((oid === INT8_OID || oid === NUMERIC_OID) && format !== 'binary') return Number;
    return format === 'binary' ? pgTypes().getTypeParser(oid, 'binary') : pgTypes().getTypeParser(oid, 'text');
  },
};

/** The options of a PostgreSQL claw store DataSource (entities and migrations added by the caller). */
export function postgresOptions(location: Extract<ClawStoreLocation, { type: 'postgres' }>): DataSourceOptions {
  return {
    type: 'postgres',
    url: location.url,
    poolSize: LIMITS.clawStorePoolSize,
    connectTimeoutMS: LIMITS.clawStoreConnectSeconds * 1000,
    applicationName: 'xdog-claw',
    // A lock wait ends like SQLite's busy timeout: BUSY, never an unbounded wait.
    extra: { types: clawTypes, options: `-c lock_timeout=${LIMITS.clawStoreLockWaitMs}` },
  };
}

/** Opens the pool (one connection is made to check the server); UNAVAILABLE naming the redacted URL. */
export async function connectPostgres(dataSource: DataSource, location: Extract<ClawStoreLocation, { type: 'postgres' }>): Promise<void> {
  try {
    await dataSource.initialize();
  } catch (error) {
    const where = describeClawStore(location);
    const variable = location.urlEnv ? ` in ${location.urlEnv}` : '';
    throw new XdogError(ErrorCodes.UNAVAILABLE, `cannot connect to the claw store ${where}: ${(error as Error).message}`, {
      hint: `check that PostgreSQL runs at that address and accepts the user, password and database${variable} (connect timeout ${LIMITS.clawStoreConnectSeconds}s)`,
      cause: error,
    });
  }
}

/** The advisory lock key migrations run under: any 64-bit number, the same in every process ("xdogclaw"). */
const MIGRATION_LOCK_KEY = '8675181272062779767';
/** How often a worker that waits for another's migrations tries the lock again, in ms. */
const MIGRATION_LOCK_POLL_MS = 50;

interface Runner {
  query(sql: string, params?: unknown[]): Promise<unknown>;
}

/**
 * Runs `work` holding a session-level PostgreSQL advisory lock on `runner`,
 * so workers starting at once migrate one after another (the later ones find
 * nothing pending). The lock goes with the session if the process dies;
 * waiting for it ends after LIMITS.clawStoreMigrationLockSeconds.
 */
export async function withMigrationLock<T>(runner: Runner, location: string, work: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + LIMITS.clawStoreMigrationLockSeconds * 1000;
  for (;;) {
    const [row] = (await runner.query('SELECT pg_try_advisory_lock($1) AS locked', [MIGRATION_LOCK_KEY])) as { locked: boolean }[];
    if (row?.locked) break;
    if (Date.now() >= deadline) {
      throw new XdogError(ErrorCodes.UNAVAILABLE, `another process has been migrating the claw store ${location} for over ${LIMITS.clawStoreMigrationLockSeconds}s`, {
        hint: 'look for a stuck xdog process using this database (pg_stat_activity, application_name xdog-claw) and stop it',
      });
    }
    await new Promise((resolve) => setTimeout(resolve, MIGRATION_LOCK_POLL_MS));
  }
  try {
    return await work();
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
  }
}
