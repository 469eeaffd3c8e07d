/**
 * The one way the session store talks to its database: raw SQL with `:name`
 * parameters, rewritten once per statement to the driver's placeholders (so
 * statement caches hit and the same text runs on SQLite and PostgreSQL).
 * On SQLite every operation is serialized on this store: typeorm's
 * better-sqlite3 driver has a single connection, so two interleaved
 * transactions would silently nest. On PostgreSQL operations run concurrently
 * on the pool (one connection each): transactions are SERIALIZABLE, and one
 * that loses to a concurrent writer (this process, another worker) is re-run
 * whole with a jittered backoff, so `work` must have no effects outside the
 * transaction. Callers needing an order between their own operations await
 * them in turn (nothing here orders two operations of one process on PG).
 */
import type { DataSource, QueryRunner } from 'typeorm';
import { ErrorCodes, XdogError, timedStoreTransaction } from '../../core/index.js';
import { LIMITS } from '../../core/limits.js';
import { describeClawStore } from '../../entities/claw-store-location.js';
import { DamagedStore } from './stored.js';

export type Params = Record<string, unknown>;

/** Statements against one connection (inside a transaction or not). */
export interface Sql {
  all<T>(sql: string, params?: Params): Promise<T[]>;
  /** Runs a statement; returns the number of rows it changed. */
  run(sql: string, params?: Params): Promise<number>;
  /**
   * What a SELECT ends with to lock the rows it reads until the transaction ends, for an update
   * of their other columns (` FOR NO KEY UPDATE` on PostgreSQL: rows that only reference them
   * can still be added); nothing on SQLite, whose write transactions hold the file from BEGIN.
   */
  readonly forUpdate: string;
}

export interface TransactionOptions {
  /**
   * `work` locks every row whose reading decides what it writes (`Sql.forUpdate`), and its other
   * reads are of rows nobody changes. On PostgreSQL it then runs READ COMMITTED: writers of other
   * rows never fail it, writers of the same rows wait for each other. Without this it runs
   * SERIALIZABLE, which also guards invariants across rows (counts, uniqueness by lookup).
   */
  rowLocks?: boolean;
}

interface Compiled {
  text: string;
  names: string[];
}

const PARAMETER = /:([A-Za-z_][A-Za-z0-9_]*)/g;

/**
 * SQLite: IMMEDIATE takes the write lock up front (waiting up to the busy timeout), so a
 * transaction that reads then writes cannot fail midway because another process wrote.
 */
const SQLITE_BEGIN = 'BEGIN IMMEDIATE';

/**
 * PostgreSQL: SERIALIZABLE, with index scans wherever an index serves the query. A sequential
 * scan takes a predicate lock on the whole table, and the planner picks one for any table that
 * fits a page or two: two appends to different sessions then read "all of claw_sessions" and
 * write a row of it each, and one fails as if both had touched the same session (on three
 * workers, often enough to exhaust the retries). Index scans lock the rows and index pages they
 * read, so only real overlaps conflict. One simple-protocol round trip for both statements.
 */
const POSTGRES_BEGIN = 'BEGIN ISOLATION LEVEL SERIALIZABLE; SET LOCAL enable_seqscan = off';

/** PostgreSQL, for work that locks what it reads (TransactionOptions.rowLocks); a deadlock is still re-run. */
const POSTGRES_BEGIN_ROW_LOCKS = 'BEGIN ISOLATION LEVEL READ COMMITTED';

export class StoreDatabase {
  private readonly compiled = new Map<string, Compiled>();
  /** SQLite: the last queued operation (each starts after it). */
  private tail: Promise<unknown> = Promise.resolve();
  /** PostgreSQL: first attempts of transactions share it; a re-run holds it alone. */
  readonly #gate = new Gate();
  /** Operations not yet settled (both stores), for idle(). */
  private readonly running = new Set<Promise<unknown>>();
  private readonly sqlite: boolean;

  constructor(readonly dataSource: DataSource) {
    this.sqlite = dataSource.options.type === 'better-sqlite3';
  }

  /**
   * Runs `work` as one store operation: on SQLite after every earlier one has
   * finished, on PostgreSQL at once (the pool gives it its own connection).
   */
  private operation<T>(work: () => Promise<T>): Promise<T> {
    const started = this.sqlite ? this.tail.then(work) : Promise.resolve().then(work);
    const result = started.catch((error: unknown) => {
      throw this.translate(error);
    });
    const settled = result.catch(() => undefined);
    if (this.sqlite) this.tail = settled;
    this.running.add(settled);
    void settled.then(() => this.running.delete(settled));
    return result;
  }

  /** Resolves once every operation started before the call has settled. */
  async idle(): Promise<void> {
    await Promise.all([...this.running]);
  }

  /** A read outside any transaction. */
  read<T>(work: (sql: Sql) => Promise<T>): Promise<T> {
    return this.operation(async () => {
      const runner = this.dataSource.createQueryRunner();
      try {
        return await work(this.over(runner));
      } finally {
        await runner.release();
      }
    });
  }

  /**
   * Runs `work` in one transaction: it commits only if `work` resolves, and
   * rolls back otherwise. On PostgreSQL a serialization failure or deadlock
   * re-runs `work` (up to LIMITS.clawStoreSerializationRetries times), so it
   * must not act outside the transaction; after the last retry it is BUSY.
   * A re-run runs alone among this store's transactions (new ones wait, the
   * running ones finish first): under contention the process falls back to
   * one transaction at a time, so its writers stop colliding with each other
   * and only other processes can make a re-run fail again.
   */
  transaction<T>(work: (sql: Sql) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    // Timed only while telemetry listens (xdog.store.transaction.duration).
    return timedStoreTransaction(this.sqlite ? 'sqlite' : 'postgresql', () => this.untimedTransaction(work, options));
  }

  private untimedTransaction<T>(work: (sql: Sql) => Promise<T>, options: TransactionOptions): Promise<T> {
    if (this.sqlite) return this.operation(() => this.attempt(work, SQLITE_BEGIN));
    const begin = options.rowLocks ? POSTGRES_BEGIN_ROW_LOCKS : POSTGRES_BEGIN;
    // The backoff between attempts waits outside the gate, so it holds up no other operation.
    return this.operation(() => retryingConflicts((attempt) => (attempt === 0 ? this.#gate.shared(() => this.attempt(work, begin)) : this.#gate.alone(() => this.attempt(work, begin)))));
  }

  private async attempt<T>(work: (sql: Sql) => Promise<T>, begin: string): Promise<T> {
    const runner = this.dataSource.createQueryRunner();
    try {
      await runner.query(begin);
      try {
        const result = await work(this.over(runner));
        await runner.query('COMMIT');
        return result;
      } catch (error) {
        // A failed PostgreSQL COMMIT has already ended the transaction; ROLLBACK then only warns.
        await runner.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    } finally {
      await runner.release();
    }
  }

  /** Database errors a person can act on become XdogErrors; anything else (a bug) passes unchanged. */
  private translate(error: unknown): unknown {
    if (XdogError.is(error)) return error;
    const code = errorCode(error);
    const where = `the claw store ${this.where()}`;
    if (error instanceof DamagedStore) {
      return new XdogError(ErrorCodes.STORE_CORRUPT, `${where} is damaged: ${error.problem}`, {
        hint: 'nothing was changed; stop every gateway using it and restore it from a backup (xdog never repairs or resets a damaged store)',
        cause: error,
      });
    }
    if (isSerializationFailure(error)) {
      return new XdogError(ErrorCodes.BUSY, `${where} is busy: a transaction kept conflicting with other writers (${LIMITS.clawStoreSerializationRetries} retries)`, {
        hint: 'retry; if it persists, fewer processes should write to the same groups at once',
        cause: error,
      });
    }
    if (code.startsWith('SQLITE_BUSY') || code === LOCK_NOT_AVAILABLE) {
      return new XdogError(ErrorCodes.BUSY, `${where} is busy: another process holds its write lock`, { hint: 'retry; if it persists, look for another process using the store', cause: error });
    }
    if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') {
      return new XdogError(ErrorCodes.STORE_CORRUPT, `${where} is damaged: ${(error as Error).message}`, {
        hint: 'stop every gateway using it and restore it from a backup (xdog never resets a damaged store)',
        cause: error,
      });
    }
    if (!this.sqlite && isConnectionFailure(error, code)) {
      return new XdogError(ErrorCodes.UNAVAILABLE, `${where} is unreachable: ${(error as Error).message}`, {
        hint: 'check that PostgreSQL runs and accepts connections at that address; the gateway retries on its own and serves again once it is back (nothing was run)',
        cause: error,
        // Callers that may wait for the server (a run about to start) tell this apart from a refusal.
        details: { unreachable: true },
      });
    }
    if (code.startsWith('SQLITE_FULL') || code === 'SQLITE_IOERR' || code.startsWith('SQLITE_IOERR') || code === 'SQLITE_READONLY') {
      return new XdogError(ErrorCodes.UNAVAILABLE, `${where} cannot be written: ${(error as Error).message}`, { hint: 'check free disk space and the file permissions', cause: error });
    }
    return error;
  }

  /** The store as errors name it: its file, or its PostgreSQL URL without the password. */
  private where(): string {
    const options = this.dataSource.options as { database?: unknown; url?: string };
    if (this.sqlite) return String(options.database);
    return options.url ? describeClawStore({ type: 'postgres', url: options.url }) : String(options.database ?? 'on PostgreSQL');
  }

  private compile(sql: string): Compiled {
    let compiled = this.compiled.get(sql);
    if (!compiled) {
      const names: string[] = [];
      const text = sql.replace(PARAMETER, (_match, name: string) => {
        names.push(name);
        return this.dataSource.driver.createParameter(name, names.length - 1);
      });
      compiled = { text, names };
      this.compiled.set(sql, compiled);
    }
    return compiled;
  }

  private over(runner: QueryRunner): Sql {
    const prepare = (sql: string, params: Params = {}): [string, unknown[]] => {
      const { text, names } = this.compile(sql);
      return [
        text,
        names.map((name) => {
          if (!(name in params)) throw new Error(`SQL parameter :${name} missing`);
          return params[name];
        }),
      ];
    };
    return {
      all: async <T>(sql: string, params?: Params) => {
        const [text, values] = prepare(sql, params);
        const result = await runner.query(text, values, true);
        return (result.records ?? []) as T[];
      },
      run: async (sql: string, params?: Params) => {
        const [text, values] = prepare(sql, params);
        const result = await runner.query(text, values, true);
        return result.affected ?? 0;
      },
      forUpdate: this.sqlite ? '' : ' FOR NO KEY UPDATE',
    };
  }
}

/** The driver's error code (SQLITE_BUSY, a PostgreSQL SQLSTATE), from a typeorm QueryFailedError or the driver's own error. */
function errorCode(error: unknown): string {
  return String((error as { driverError?: { code?: unknown } })?.driverError?.code ?? (error as { code?: unknown })?.code ?? '');
}

/** Socket errors of a server that is down or cut off. */
const SOCKET_FAILURES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EPIPE', 'EAI_AGAIN']);

/**
 * The PostgreSQL server is gone for now (restarting, shut down, unreachable): a connection
 * exception (class 08), an administrator's shutdown (57P01..57P03), a socket error, or pg's
 * own words for a connection that ended or could not be made in time.
 */
function isConnectionFailure(error: unknown, code: string): boolean {
  if (SOCKET_FAILURES.has(code) || code.startsWith('08') || /^57P0[123]$/.test(code)) return true;
  const message = error instanceof Error ? error.message : '';
  return /Connection terminated|timeout exceeded when trying to connect|the database system is (starting up|shutting down)|Client has encountered a connection error|Query runner already released/i.test(message);
}

/** PostgreSQL lock_not_available: a lock wait passed lock_timeout. */
const LOCK_NOT_AVAILABLE = '55P03';

/** PostgreSQL serialization_failure or deadlock_detected, also when wrapped (an XdogError's cause). */
function isSerializationFailure(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 4; current = (current as { cause?: unknown }).cause, depth++) {
    const code = errorCode(current);
    if (code === '40001' || code === '40P01') return true;
  }
  return false;
}

/**
 * Runs a PostgreSQL transaction, or a call that is one, again after a
 * serialization failure or deadlock (up to LIMITS.clawStoreSerializationRetries
 * times, with a jittered backoff); other errors, and the last failure, are
 * thrown as they are. `work` learns which attempt it is.
 */
export async function retryingConflicts<T>(work: (attempt: number) => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await work(attempt);
    } catch (error) {
      if (!isSerializationFailure(error) || attempt >= LIMITS.clawStoreSerializationRetries) throw error;
      await new Promise((resolve) => setTimeout(resolve, retryDelay(attempt)));
    }
  }
}

/** Exponential backoff with full jitter, so colliding writers spread out. */
function retryDelay(attempt: number): number {
  const ceiling = Math.min(LIMITS.clawStoreRetryMaxDelayMs, LIMITS.clawStoreRetryBaseDelayMs * 2 ** attempt);
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

/** Many `shared` holders at once, or one `alone` holder; a waiting `alone` goes before new `shared` ones. */
class Gate {
  #shared = 0;
  #alone: Promise<unknown> = Promise.resolve();
  #aloneWaiting = 0;
  #changed: Array<() => void> = [];

  async shared<T>(work: () => Promise<T>): Promise<T> {
    while (this.#aloneWaiting) await this.#next();
    this.#shared++;
    try {
      return await work();
    } finally {
      this.#shared--;
      this.#wake();
    }
  }

  alone<T>(work: () => Promise<T>): Promise<T> {
    this.#aloneWaiting++;
    const result = this.#alone.then(async () => {
      while (this.#shared) await this.#next();
      try {
        return await work();
      } finally {
        this.#aloneWaiting--;
        this.#wake();
      }
    });
    this.#alone = result.catch(() => undefined);
    return result;
  }

  #next(): Promise<void> {
    return new Promise((resolve) => this.#changed.push(resolve));
  }

  #wake(): void {
    for (const resolve of this.#changed.splice(0)) resolve();
  }
}
