/**
 * Wake-ups between workers sharing a store: "a handoff waits for group g",
 * "the answer of handoff h is written", "events of group g were relayed", "a
 * job of group g was sent", "approval a was answered". PostgreSQL: LISTEN on one dedicated `pg`
 * connection per worker (never a pooled one: a pooler in transaction mode
 * would drop the LISTEN), NOTIFY through the store's pool, each carrying what
 * it is about (a group, a handoff id) so that only the worker concerned reads
 * the store. The dedicated connection is made again with backoff when it
 * breaks (the server restarted), and every listener then checks everything
 * once, since notifications sent meanwhile are gone. A slow fallback check
 * (LIMITS.clawWakeupFallbackMs) covers a notification lost any other way.
 * SQLite: no notifications across processes, so listeners run on a short poll.
 */
import type { DataSource } from 'typeorm';
import { describeError } from '../../core/index.js';
import { LIMITS } from '../../core/limits.js';

export type WakeupChannel = 'claw_handoff' | 'claw_handoff_done' | 'claw_relay' | 'claw_interest' | 'claw_job' | 'claw_approval';

/** What a wake-up is about: the payloads notified since the listener last ran, or undefined for "check everything" (a poll, a fallback check, a reconnect). */
export type WakeupTargets = ReadonlySet<string> | undefined;

export type WakeupListener = (targets: WakeupTargets) => Promise<void>;

export interface Wakeups {
  /** True when other workers are told at once (NOTIFY); false where listeners poll. */
  readonly notifies: boolean;
  /** Runs `listener` when the channel is notified (or on each poll); never concurrently with itself. */
  on(channel: WakeupChannel, listener: WakeupListener): void;
  /** Settles once every channel given to on() so far is listened to (a NOTIFY sent earlier is not seen). */
  listening(): Promise<void>;
  /** Tells the other workers that `payload` (a group, a handoff id; several joined by newlines) has news on `channel` (no-op where they poll). */
  notify(channel: WakeupChannel, payload: string): Promise<void>;
  /**
   * The same wake-up, to be sent by a store statement that writes what it is about (one round trip,
   * and delivered only once that write commits); undefined where listeners poll.
   */
  along(channel: WakeupChannel, payload: string): Notice | undefined;
  close(): Promise<void>;
}

/** A NOTIFY carried by a store statement (worker-store.ts `withNotice`). */
export interface Notice {
  channel: WakeupChannel;
  payload: string;
}

/** The wait before retry `attempt` (0-based) of something the store refused while unreachable: 100 ms doubling to 5 s. */
export function backoffMs(attempt: number): number {
  return Math.min(LIMITS.clawWakeupReconnectMaxMs, LIMITS.clawWakeupReconnectBaseMs * 2 ** attempt);
}

/** PostgreSQL's limit for a NOTIFY payload is 8000 bytes; a longer one is sent empty ("check everything"). */
const PAYLOAD_BYTES = 7_900;

/** One listener that never runs twice at once; wake-ups during a run are gathered and run once after it. */
export function serialized(listener: WakeupListener, log: (line: string) => void): (payload?: string) => void {
  let running = false;
  /** undefined: nothing pending; 'all': check everything. */
  let pending: Set<string> | 'all' | undefined;
  const run = async (): Promise<void> => {
    if (running) return;
    running = true;
    try {
      while (pending !== undefined) {
        const targets = pending === 'all' ? undefined : pending;
        pending = undefined;
        await listener(targets).catch((error: unknown) => log(`worker wake-up failed: ${describeError(error)}`));
      }
    } finally {
      running = false;
    }
  };
  return (payload?: string) => {
    if (!payload) pending = 'all';
    else if (pending !== 'all') {
      const targets = pending ?? new Set<string>();
      for (const target of payload.split('\n')) targets.add(target);
      pending = targets;
    }
    void run();
  };
}

class PollingWakeups implements Wakeups {
  readonly notifies = false;
  readonly #timers: NodeJS.Timeout[] = [];
  constructor(
    private readonly pollMs: number,
    private readonly log: (line: string) => void,
  ) {}

  on(_channel: WakeupChannel, listener: WakeupListener): void {
    const run = serialized(listener, this.log);
    const timer = setInterval(() => run(), this.pollMs);
    timer.unref();
    this.#timers.push(timer);
  }

  async listening(): Promise<void> {}

  async notify(): Promise<void> {}

  along(): undefined {
    return undefined;
  }

  async close(): Promise<void> {
    for (const timer of this.#timers.splice(0)) clearInterval(timer);
  }
}

export interface PgClient {
  connect(): Promise<unknown>;
  query(text: string, values?: unknown[]): Promise<unknown>;
  on(event: 'notification', listener: (message: { channel: string; payload?: string }) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
  end(): Promise<void>;
}

export interface ListenOptions {
  /** A new, unconnected client for the dedicated connection. */
  client(): PgClient;
  /** Sends one notification (through the store's pool, which reconnects on its own). */
  send(channel: string, payload: string): Promise<void>;
  log(line: string): void;
}

export class ListenWakeups implements Wakeups {
  readonly notifies = true;
  readonly #options: ListenOptions;
  readonly #listeners = new Map<WakeupChannel, Array<(payload?: string) => void>>();
  readonly #timers: NodeJS.Timeout[] = [];
  #client?: PgClient;
  /** Channels LISTENed on the current connection. */
  #listened = new Set<string>();
  #reconnectTimer?: NodeJS.Timeout;
  #failures = 0;
  #closed = false;
  /** One query at a time on the connection (pg deprecates overlapping ones). */
  #tail: Promise<unknown> = Promise.resolve();

  private constructor(options: ListenOptions) {
    this.#options = options;
  }

  /** Makes the dedicated connection; a failure here is the caller's (the gateway does not start without its store). */
  static async open(options: ListenOptions): Promise<ListenWakeups> {
    const wakeups = new ListenWakeups(options);
    await wakeups.#connect();
    return wakeups;
  }

  /** True while the dedicated connection is up (for tests and status). */
  get connected(): boolean {
    return this.#client !== undefined;
  }

  async #connect(): Promise<void> {
    const client = this.#options.client();
    client.on('notification', (message) => {
      for (const listener of this.#listeners.get(message.channel as WakeupChannel) ?? []) listener(message.payload);
    });
    client.on('error', (error) => this.#lost(client, error));
    client.on('end', () => this.#lost(client));
    await client.connect();
    const listened = new Set<string>();
    this.#tail = Promise.resolve();
    this.#client = client;
    this.#listened = listened;
    // Channels added while this ran are listened to by on() once #client is set; the rest here.
    for (const channel of [...this.#listeners.keys()]) await this.#listen(channel);
  }

  #listen(channel: WakeupChannel): Promise<void> {
    const client = this.#client;
    if (!client || this.#listened.has(channel)) return Promise.resolve();
    this.#listened.add(channel);
    const done = this.#tail.then(() => client.query(`LISTEN ${channel}`));
    this.#tail = done.catch(() => undefined);
    return done.then(() => undefined);
  }

  #lost(client: PgClient, error?: Error): void {
    if (this.#closed || this.#client !== client) return;
    this.#client = undefined;
    void client.end().catch(() => undefined);
    this.#options.log(`the LISTEN connection broke (${error ? describeError(error) : 'closed by the server'}); reconnecting, meanwhile work is found by the ${LIMITS.clawWakeupFallbackMs} ms check`);
    this.#scheduleReconnect();
  }

  #scheduleReconnect(): void {
    if (this.#closed || this.#reconnectTimer) return;
    const base = backoffMs(this.#failures);
    // Jittered, so the workers of a restarted server do not all knock at once.
    const delay = base / 2 + Math.random() * (base / 2);
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnectTimer = undefined;
      void this.#reconnect();
    }, delay);
    this.#reconnectTimer.unref();
  }

  async #reconnect(): Promise<void> {
    if (this.#closed) return;
    try {
      await this.#connect();
    } catch (error) {
      const client = this.#client;
      this.#client = undefined;
      void client?.end().catch(() => undefined);
      this.#failures++;
      if (this.#failures === 1 || this.#failures % 10 === 0) this.#options.log(`the LISTEN connection could not be made again (${describeError(error)}, attempt ${this.#failures}); retrying`);
      this.#scheduleReconnect();
      return;
    }
    if (this.#closed) {
      await this.#client?.end().catch(() => undefined);
      return;
    }
    this.#options.log(`the LISTEN connection is back (after ${this.#failures + 1} attempt(s)); checking for work missed meanwhile`);
    this.#failures = 0;
    // What was notified while the connection was down is lost: everyone checks everything once.
    for (const list of this.#listeners.values()) for (const listener of list) listener();
  }

  on(channel: WakeupChannel, listener: WakeupListener): void {
    const run = serialized(listener, this.#options.log);
    const list = this.#listeners.get(channel);
    if (list) list.push(run);
    else {
      this.#listeners.set(channel, [run]);
      void this.#listen(channel).catch((error: unknown) => this.#options.log(`LISTEN ${channel} failed: ${describeError(error)}`));
    }
    const timer = setInterval(() => run(), LIMITS.clawWakeupFallbackMs);
    timer.unref();
    this.#timers.push(timer);
  }

  async listening(): Promise<void> {
    // LISTENs go through #tail one at a time: once it settles, every one queued so far has run.
    await this.#tail;
  }

  async notify(channel: WakeupChannel, payload: string): Promise<void> {
    await this.#options.send(channel, this.along(channel, payload).payload);
  }

  along(channel: WakeupChannel, payload: string): Notice {
    return { channel, payload: Buffer.byteLength(payload) > PAYLOAD_BYTES ? '' : payload };
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#reconnectTimer);
    for (const timer of this.#timers.splice(0)) clearInterval(timer);
    await this.#client?.end().catch(() => undefined);
    this.#client = undefined;
  }
}

/** Wake-ups for the store behind `dataSource`: LISTEN/NOTIFY on PostgreSQL, a poll elsewhere. */
export async function openWakeups(dataSource: DataSource, log: (line: string) => void): Promise<Wakeups> {
  if (dataSource.options.type !== 'postgres') return new PollingWakeups(LIMITS.clawWorkerPollMs, log);
  const options = dataSource.options as { url?: string; host?: string; port?: number; username?: string; password?: string | (() => string | Promise<string>); database?: string; connectTimeoutMS?: number };
  // Loaded here: only PostgreSQL stores need the driver.
  const { default: pg } = await import('pg');
  const password = typeof options.password === 'function' ? await options.password() : options.password;
  return ListenWakeups.open({
    client: () =>
      new pg.Client({
        connectionString: options.url,
        host: options.host,
        port: options.port,
        user: options.username,
        password,
        database: options.database,
        application_name: 'xdog-claw-listen',
        connectionTimeoutMillis: options.connectTimeoutMS ?? LIMITS.clawStoreConnectSeconds * 1000,
        // A peer that vanished without a word (a cut network) is noticed by TCP keepalive, not never.
        keepAlive: true,
        keepAliveInitialDelayMillis: 10_000,
      }) as unknown as PgClient,
    send: async (channel, payload) => {
      await dataSource.query('SELECT pg_notify($1, $2)', [channel, payload]);
    },
    log,
  });
}
