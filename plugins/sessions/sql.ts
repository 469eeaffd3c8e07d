/**
 * The one way the session store talks to its database: raw SQL with `:name`
 * parameters, rewritten once per statement to the driver's placeholders (so
 * statement caches hit and the same text runs on SQLite and PostgreSQL), and
 * every operation serialized on this store. Serializing matters for
 * correctness, not only speed: typeorm's better-sqlite3 driver has a single
 * connection, so two interleaved transactions would silently nest.
 */
import type { DataSource, QueryRunner } from 'typeorm';
import { ErrorCodes, XdogError } from '../../core/index.js';

export type Params = Record<string, unknown>;

/** Statements against one connection (inside a transaction or not). */
export interface Sql {
  all<T>(sql: string, params?: Params): Promise<T[]>;
  /** Runs a statement; returns the number of rows it changed. */
  run(sql: string, params?: Params): Promise<number>;
}

interface Compiled {
  text: string;
  names: string[];
}

const PARAMETER = /:([A-Za-z_][A-Za-z0-9_]*)/g;

export class StoreDatabase {
  private readonly compiled = new Map<string, Compiled>();
  private tail: Promise<unknown> = Promise.resolve();
  private readonly sqlite: boolean;

  constructor(readonly dataSource: DataSource) {
    this.sqlite = dataSource.options.type === 'better-sqlite3';
  }

  /** Runs `work` after every earlier operation of this store has finished. */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    const result = this.tail.then(work).catch((error: unknown) => {
      throw this.translate(error);
    });
    this.tail = result.catch(() => undefined);
    return result;
  }

  /** A read outside any transaction. */
  read<T>(work: (sql: Sql) => Promise<T>): Promise<T> {
    return this.exclusive(async () => {
      const runner = this.dataSource.createQueryRunner();
      try {
        return await work(this.over(runner));
      } finally {
        await runner.release();
      }
    });
  }

  /** Runs `work` in one transaction: it commits only if `work` resolves, and rolls back otherwise. */
  transaction<T>(work: (sql: Sql) => Promise<T>): Promise<T> {
    return this.exclusive(async () => {
      const runner = this.dataSource.createQueryRunner();
      try {
        // SQLite: IMMEDIATE takes the write lock up front (waiting up to the busy timeout), so a
        // transaction that reads then writes cannot fail midway because another process wrote.
        if (this.sqlite) await runner.query('BEGIN IMMEDIATE');
        else await runner.startTransaction('SERIALIZABLE');
        let result: T;
        try {
          result = await work(this.over(runner));
        } catch (error) {
          if (this.sqlite) await runner.query('ROLLBACK');
          else await runner.rollbackTransaction();
          throw error;
        }
        if (this.sqlite) await runner.query('COMMIT');
        else await runner.commitTransaction();
        return result;
      } finally {
        await runner.release();
      }
    });
  }

  /** Database errors a person can act on become XdogErrors; anything else (a bug) passes unchanged. */
  private translate(error: unknown): unknown {
    if (XdogError.is(error)) return error;
    const code = String((error as { driverError?: { code?: unknown } })?.driverError?.code ?? (error as { code?: unknown })?.code ?? '');
    const where = this.sqlite ? `the claw store ${String(this.dataSource.options.database)}` : 'the claw store';
    if (code.startsWith('SQLITE_BUSY') || code === '40001' || code === '40P01') {
      return new XdogError(ErrorCodes.BUSY, `${where} is busy: another process holds its write lock`, { hint: 'retry; if it persists, look for another process using the store', cause: error });
    }
    if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') {
      return new XdogError(ErrorCodes.STORE_CORRUPT, `${where} is damaged: ${(error as Error).message}`, {
        hint: 'stop every gateway using it and restore it from a backup (xdog never resets a damaged store)',
        cause: error,
      });
    }
    if (code.startsWith('SQLITE_FULL') || code === 'SQLITE_IOERR' || code.startsWith('SQLITE_IOERR') || code === 'SQLITE_READONLY') {
      return new XdogError(ErrorCodes.UNAVAILABLE, `${where} cannot be written: ${(error as Error).message}`, { hint: 'check free disk space and the file permissions', cause: error });
    }
    return error;
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
    };
  }
}
