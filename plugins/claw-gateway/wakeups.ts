/**
 * Wake-ups between workers sharing a store: "a handoff is waiting", "an
 * answer is written", "events were relayed". PostgreSQL: LISTEN/NOTIFY on a
 * dedicated `pg` connection (plus a slow check, so a notification lost while
 * reconnecting delays work instead of losing it). SQLite: no notifications
 * across processes, so listeners run on a short poll.
 */
import type { DataSource } from 'typeorm';
import { describeError } from '../../core/index.js';
import { LIMITS } from '../../core/limits.js';

export type WakeupChannel = 'claw_handoff' | 'claw_handoff_done' | 'claw_relay';

export interface Wakeups {
  /** Runs `listener` when the channel is notified (or on each poll); never concurrently with itself. */
  on(channel: WakeupChannel, listener: () => Promise<void>): void;
  /** Tells the other workers (no-op where they poll). */
  notify(channel: WakeupChannel): Promise<void>;
  close(): Promise<void>;
}

/** How often PostgreSQL listeners check anyway. */
const PG_SAFETY_CHECK_MS = 2_000;

/** One listener that never runs twice at once; a wake-up during a run runs it once more after. */
function serialized(listener: () => Promise<void>, log: (line: string) => void): () => void {
  let running = false;
  let again = false;
  const run = async (): Promise<void> => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        await listener().catch((error: unknown) => log(`worker wake-up failed: ${describeError(error)}`));
      } while (again);
    } finally {
      running = false;
    }
  };
  return () => void run();
}

class PollingWakeups implements Wakeups {
  readonly #timers: NodeJS.Timeout[] = [];
  constructor(
    private readonly pollMs: number,
    private readonly log: (line: string) => void,
  ) {}

  on(_channel: WakeupChannel, listener: () => Promise<void>): void {
    const timer = setInterval(serialized(listener, this.log), this.pollMs);
    timer.unref();
    this.#timers.push(timer);
  }

  async notify(): Promise<void> {}

  async close(): Promise<void> {
    for (const timer of this.#timers.splice(0)) clearInterval(timer);
  }
}

interface PgClient {
  connect(): Promise<unknown>;
  query(text: string, values?: unknown[]): Promise<unknown>;
  on(event: 'notification', listener: (message: { channel: string }) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  end(): Promise<void>;
}

class ListenWakeups implements Wakeups {
  readonly #listeners = new Map<WakeupChannel, Array<() => void>>();
  readonly #timers: NodeJS.Timeout[] = [];
  #closed = false;
  /** One query at a time on the connection (pg deprecates overlapping ones). */
  #tail: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly client: PgClient,
    private readonly log: (line: string) => void,
  ) {
    client.on('notification', (message) => {
      for (const listener of this.#listeners.get(message.channel as WakeupChannel) ?? []) listener();
    });
    client.on('error', (error) => {
      if (!this.#closed) log(`the LISTEN connection failed (${describeError(error)}); workers now find work by the ${PG_SAFETY_CHECK_MS} ms check only`);
    });
  }

  on(channel: WakeupChannel, listener: () => Promise<void>): void {
    const run = serialized(listener, this.log);
    const list = this.#listeners.get(channel);
    if (list) list.push(run);
    else {
      this.#listeners.set(channel, [run]);
      void this.#query(`LISTEN ${channel}`).catch((error: unknown) => this.log(`LISTEN ${channel} failed: ${describeError(error)}`));
    }
    const timer = setInterval(run, PG_SAFETY_CHECK_MS);
    timer.unref();
    this.#timers.push(timer);
  }

  async notify(channel: WakeupChannel): Promise<void> {
    await this.#query('SELECT pg_notify($1, $2)', [channel, '']);
  }

  #query(text: string, values?: unknown[]): Promise<unknown> {
    const result = this.#tail.then(() => this.client.query(text, values));
    this.#tail = result.catch(() => undefined);
    return result;
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const timer of this.#timers.splice(0)) clearInterval(timer);
    await this.client.end().catch(() => undefined);
  }
}

/** Wake-ups for the store behind `dataSource`: LISTEN/NOTIFY on PostgreSQL, a poll elsewhere. */
export async function openWakeups(dataSource: DataSource, log: (line: string) => void): Promise<Wakeups> {
  if (dataSource.options.type !== 'postgres') return new PollingWakeups(LIMITS.clawWorkerPollMs, log);
  const options = dataSource.options as { url?: string; host?: string; port?: number; username?: string; password?: string | (() => string | Promise<string>); database?: string };
  // Loaded here: only PostgreSQL stores need the driver.
  const { default: pg } = await import('pg');
  const password = typeof options.password === 'function' ? await options.password() : options.password;
  const client = new pg.Client({ connectionString: options.url, host: options.host, port: options.port, user: options.username, password, database: options.database });
  await client.connect();
  return new ListenWakeups(client as unknown as PgClient, log);
}
