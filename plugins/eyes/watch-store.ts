/**
 * The daemon's own SQLite file (better-sqlite3, WAL, synchronous=FULL):
 * watches, their observations and the claw groups that follow them. It
 * outlives the daemon, a `kill -9` and a reboot; a check's new state and its
 * observation are written in one transaction.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { ErrorCodes, XdogError } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';
import type { ObservationRecord, WatchRecord } from './protocol.js';

/** The part of better-sqlite3's API the store uses (the package ships no types). */
interface Statement {
  run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint };
  get(...params: unknown[]): Record<string, unknown> | undefined;
  all(...params: unknown[]): Array<Record<string, unknown>>;
}
interface Database {
  pragma(source: string): unknown;
  exec(source: string): void;
  prepare(source: string): Statement;
  transaction<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R;
  close(): void;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS watches (
  id TEXT PRIMARY KEY, kind TEXT NOT NULL, subject TEXT NOT NULL, interval_seconds INTEGER NOT NULL,
  matches TEXT, selector TEXT, label TEXT, workspace TEXT NOT NULL, created_at INTEGER NOT NULL,
  last_check_at INTEGER, last_digest TEXT, last_text TEXT, last_error TEXT
);
CREATE TABLE IF NOT EXISTS observations (
  id INTEGER PRIMARY KEY AUTOINCREMENT, watch_id TEXT NOT NULL REFERENCES watches(id) ON DELETE CASCADE,
  at INTEGER NOT NULL, summary TEXT NOT NULL, diff TEXT, screenshot BLOB
);
CREATE INDEX IF NOT EXISTS observations_watch ON observations(watch_id, id);
CREATE TABLE IF NOT EXISTS follows (
  watch_id TEXT NOT NULL REFERENCES watches(id) ON DELETE CASCADE, group_name TEXT NOT NULL,
  cursor INTEGER NOT NULL, PRIMARY KEY (watch_id, group_name)
);
`;

/** What a watch remembers of its last check. */
export interface WatchState {
  digest: string | null;
  text: string | null;
}

export type NewWatch = Omit<WatchRecord, 'id' | 'created_at' | 'last_check_at' | 'last_error' | 'observations' | 'followers'>;

export class WatchStore {
  readonly #db: Database;

  constructor(file: string) {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const open = createRequire(import.meta.url)('better-sqlite3') as new (file: string) => Database;
    try {
      this.#db = new open(file);
      this.#db.pragma('journal_mode = WAL');
      this.#db.pragma('synchronous = FULL');
      this.#db.pragma('foreign_keys = ON');
      this.#db.exec(SCHEMA);
    } catch (error) {
      throw new XdogError(ErrorCodes.STORE_CORRUPT, `the Eyes store ${file} cannot be opened: ${(error as Error).message}`, { hint: `move it away (its watches are lost) and start again: xdog eyes stop` });
    }
    fs.chmodSync(file, 0o600);
  }

  add(watch: NewWatch, now: number): WatchRecord {
    const count = Number(this.#db.prepare('SELECT COUNT(*) AS n FROM watches').get()!.n);
    if (count >= LIMITS.eyesWatches) {
      throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `Eyes already keeps ${LIMITS.eyesWatches} watches, its limit`, { hint: 'cancel one: xdog eyes list, then xdog eyes cancel ID' });
    }
    const id = `w_${crypto.randomBytes(6).toString('hex')}`;
    this.#db
      .prepare('INSERT INTO watches (id, kind, subject, interval_seconds, matches, selector, label, workspace, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(id, watch.kind, watch.subject, watch.interval_seconds, watch.matches, watch.selector, watch.label, watch.workspace, now);
    return this.get(id);
  }

  get(id: string): WatchRecord {
    const row = this.#db.prepare('SELECT * FROM watches WHERE id = ?').get(id);
    if (!row) throw new XdogError(ErrorCodes.NOT_FOUND, `there is no Eyes watch ${id}`, { hint: 'xdog eyes list shows the watches' });
    return this.#record(row);
  }

  list(): WatchRecord[] {
    return this.#db.prepare('SELECT * FROM watches ORDER BY created_at, id').all().map((row) => this.#record(row));
  }

  cancel(id: string): void {
    this.get(id);
    this.#db.prepare('DELETE FROM watches WHERE id = ?').run(id);
  }

  state(id: string): WatchState {
    const row = this.#db.prepare('SELECT last_digest, last_text FROM watches WHERE id = ?').get(id);
    return { digest: (row?.last_digest as string | null) ?? null, text: (row?.last_text as string | null) ?? null };
  }

  /** Records one check: the new state, and an observation when it changed (one transaction). */
  readonly checked = (id: string, now: number, state: WatchState | { error: string }, observation?: { summary: string; diff: string | null; screenshot: Buffer | null }): number | undefined =>
    this.#db.transaction(() => {
      if (!this.#db.prepare('SELECT 1 FROM watches WHERE id = ?').get(id)) return undefined; // cancelled meanwhile
      if ('error' in state) {
        this.#db.prepare('UPDATE watches SET last_check_at = ?, last_error = ? WHERE id = ?').run(now, state.error, id);
        return undefined;
      }
      this.#db.prepare('UPDATE watches SET last_check_at = ?, last_digest = ?, last_text = ?, last_error = NULL WHERE id = ?').run(now, state.digest, state.text, id);
      if (!observation) return undefined;
      const inserted = this.#db.prepare('INSERT INTO observations (watch_id, at, summary, diff, screenshot) VALUES (?, ?, ?, ?, ?)').run(id, now, observation.summary, observation.diff, observation.screenshot);
      this.#db
        .prepare('DELETE FROM observations WHERE watch_id = ? AND id NOT IN (SELECT id FROM observations WHERE watch_id = ? ORDER BY id DESC LIMIT ?)')
        .run(id, id, LIMITS.eyesObservationsPerWatch);
      return Number(inserted.lastInsertRowid);
    })();

  observations(options: { id?: string; after: number; limit: number }): ObservationRecord[] {
    const rows = options.id
      ? this.#db.prepare('SELECT * FROM observations WHERE watch_id = ? AND id > ? ORDER BY id LIMIT ?').all(options.id, options.after, options.limit)
      : this.#db.prepare('SELECT * FROM observations WHERE id > ? ORDER BY id LIMIT ?').all(options.after, options.limit);
    return rows.map(observationOf);
  }

  /** A claw group follows a watch from its next observation on. */
  follow(id: string, group: string): void {
    this.get(id);
    const last = Number(this.#db.prepare('SELECT COALESCE(MAX(id), 0) AS n FROM observations WHERE watch_id = ?').get(id)!.n);
    this.#db.prepare('INSERT INTO follows (watch_id, group_name, cursor) VALUES (?, ?, ?) ON CONFLICT DO NOTHING').run(id, group, last);
  }

  unfollow(id: string, group: string): boolean {
    return this.#db.prepare('DELETE FROM follows WHERE watch_id = ? AND group_name = ?').run(id, group).changes > 0;
  }

  /**
   * The next observation a group has not been given, with its cursor moved
   * past it in the same transaction: a claimed observation is never handed
   * out again, whatever happens to its delivery (never replay).
   */
  readonly claim = (group: string): (ObservationRecord & { label: string | null; kind: string; subject: string }) | undefined =>
    this.#db.transaction(() => {
      const row = this.#db
        .prepare(
          `SELECT o.*, w.label AS label, w.kind AS kind, w.subject AS subject FROM follows f JOIN observations o ON o.watch_id = f.watch_id AND o.id > f.cursor
           JOIN watches w ON w.id = f.watch_id WHERE f.group_name = ? ORDER BY o.id LIMIT 1`,
        )
        .get(group);
      if (!row) return undefined;
      this.#db.prepare('UPDATE follows SET cursor = ? WHERE watch_id = ? AND group_name = ?').run(row.id, row.watch_id, group);
      return { ...observationOf(row), label: (row.label as string | null) ?? null, kind: row.kind as string, subject: row.subject as string };
    })();

  close(): void {
    this.#db.close();
  }

  #record(row: Record<string, unknown>): WatchRecord {
    const id = row.id as string;
    const observations = Number(this.#db.prepare('SELECT COUNT(*) AS n FROM observations WHERE watch_id = ?').get(id)!.n);
    const followers = this.#db.prepare('SELECT group_name FROM follows WHERE watch_id = ? ORDER BY group_name').all(id).map((follow) => follow.group_name as string);
    return {
      id,
      kind: row.kind as WatchRecord['kind'],
      subject: row.subject as string,
      interval_seconds: Number(row.interval_seconds),
      matches: (row.matches as string | null) ?? null,
      selector: (row.selector as string | null) ?? null,
      label: (row.label as string | null) ?? null,
      workspace: row.workspace as string,
      created_at: Number(row.created_at),
      last_check_at: row.last_check_at === null ? null : Number(row.last_check_at),
      last_error: (row.last_error as string | null) ?? null,
      observations,
      followers,
    };
  }
}

function observationOf(row: Record<string, unknown>): ObservationRecord {
  const screenshot = row.screenshot as Buffer | null;
  return { id: Number(row.id), watch_id: row.watch_id as string, at: Number(row.at), summary: row.summary as string, diff: (row.diff as string | null) ?? null, screenshot: screenshot ? screenshot.toString('base64') : null };
}
