/**
 * The Eyes daemon: one per user, independent of whoever started it. It owns
 * the socket (core/rpc: private directory, token `hello`, bounded frames),
 * the browser, the watch store and the watcher, and serves until `stop` or
 * SIGTERM. Its allowed hosts are fixed at its start (the starter's
 * `eyes.allow_hosts`): a client whose config says otherwise is refused.
 */
import fs from 'node:fs';
import { ErrorCodes, XdogError } from '../../core/errors.js';
import { KeyedQueue } from '../../core/keyed-queue.js';
import { RpcServer, ensureRuntimeDir, readOrCreateToken, type RpcHandler } from '../../core/rpc/index.js';
import { EyesBrowser } from './browser.js';
import { eyesLocations, type EyesLocations } from './locations.js';
import { ClaimParams, EYES_PROTOCOL_VERSION, FollowParams, LookParams, ObservationsParams, ReadParams, TargetParams, WatchIdParams, WatchParams, type EyesStatus } from './protocol.js';
import { consoleEvents, look, read } from './seeing.js';
import { WatchStore } from './watch-store.js';
import { Watcher } from './watcher.js';
import type { z } from 'zod';

export interface DaemonOptions {
  locations?: EyesLocations;
  allowHosts: readonly string[];
  version: string;
  log?: (line: string) => void;
}

export class EyesDaemon {
  readonly #locations: EyesLocations;
  readonly #allowHosts: readonly string[];
  readonly #log: (line: string) => void;
  readonly #browser: EyesBrowser;
  /** The calls that use one named target, one at a time. */
  readonly #targetTurns = new KeyedQueue();
  readonly #store: WatchStore;
  readonly #watcher: Watcher;
  readonly #server: RpcServer;
  readonly #startedAt = Date.now();
  readonly #version: string;
  #stopping: Promise<void> | undefined;
  readonly #stopped: Promise<void>;
  #resolveStopped!: () => void;

  constructor(options: DaemonOptions) {
    this.#locations = options.locations ?? eyesLocations();
    this.#allowHosts = [...options.allowHosts];
    this.#version = options.version;
    this.#log = options.log ?? ((line) => process.stdout.write(`${new Date().toISOString()} ${line}\n`));
    ensureRuntimeDir(this.#locations.runtimeRoot, this.#locations.runtimeDir);
    this.#browser = new EyesBrowser({ allowHosts: this.#allowHosts, log: this.#log });
    this.#store = new WatchStore(this.#locations.store);
    this.#watcher = new Watcher({ store: this.#store, browser: this.#browser, allowHosts: this.#allowHosts, log: this.#log });
    this.#server = new RpcServer({
      socketPath: this.#locations.socket,
      token: readOrCreateToken(this.#locations.token),
      protocolVersion: EYES_PROTOCOL_VERSION,
      capabilities: ['eyes:1'],
      methods: this.#methods(),
      serverVersion: options.version,
      log: this.#log,
    });
    this.#stopped = new Promise((resolve) => (this.#resolveStopped = resolve));
  }

  /** Resolves once the daemon has stopped. */
  get stopped(): Promise<void> {
    return this.#stopped;
  }

  async start(): Promise<void> {
    await this.#server.listen();
    fs.mkdirSync(this.#locations.stateDir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(this.#locations.pidFile, `${process.pid}\n`, { mode: 0o600 });
    this.#watcher.start();
    this.#log(`Eyes daemon ready (pid ${process.pid}) on ${this.#locations.socket}; allowed hosts: loopback${this.#allowHosts.length ? `, ${this.#allowHosts.join(', ')}` : ''}`);
  }

  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      this.#watcher.stop();
      await this.#browser.stop();
      // A client that does not read its last answer must not hold the stop up.
      await Promise.race([this.#server.close(), new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
      this.#store.close();
      fs.rmSync(this.#locations.pidFile, { force: true });
      this.#log('Eyes daemon stopped');
      this.#resolveStopped();
    })();
    return this.#stopping;
  }

  status(): EyesStatus {
    return {
      pid: process.pid,
      version: this.#version,
      started_at: this.#startedAt,
      socket: this.#locations.socket,
      store: this.#locations.store,
      allow_hosts: [...this.#allowHosts],
      browser: { running: this.#browser.running, pid: this.#browser.browserPid() },
      targets: this.#browser.targets(),
      watches: this.#store.list().length,
    };
  }

  #methods(): Map<string, RpcHandler> {
    const method = <S extends z.ZodType>(schema: S, handle: (params: z.infer<S>) => unknown): RpcHandler => async (params) => handle(parse(schema, params ?? {}));
    return new Map<string, RpcHandler>([
      ['status', method(TargetParams.partial(), () => this.status())],
      [
        'stop',
        method(TargetParams.partial(), () => {
          // Answer first, then stop.
          setTimeout(() => void this.stop(), 50);
          return { stopping: true, pid: process.pid };
        }),
      ],
      // One target is one page: two agents' looks at it would interleave a navigation with a screenshot.
      ['look', method(LookParams, (params) => this.#targetTurns.run(params.target, () => look(this.#browser, params, this.#allowHosts)))],
      ['read', method(ReadParams, (params) => this.#targetTurns.run(params.target, () => read(this.#browser, params, this.#allowHosts)))],
      ['console', method(TargetParams, (params) => this.#targetTurns.run(params.target, async () => consoleEvents(this.#browser, params.target)))],
      ['close', method(TargetParams, (params) => this.#targetTurns.run(params.target, async () => ({ closed: await this.#browser.close(params.target) })))],
      [
        'watch',
        method(WatchParams, (params) => {
          const watch = { kind: params.kind, subject: params.subject, interval_seconds: params.interval_seconds, matches: params.matches ?? null, selector: params.selector ?? null, label: params.label ?? null, workspace: params.workspace };
          this.#watcher.validate(watch);
          const record = this.#store.add(watch, Date.now());
          // The first check (the baseline) runs at once.
          this.#watcher.schedule({ ...record, last_check_at: Date.now() - record.interval_seconds * 1000 });
          return record;
        }),
      ],
      ['list', method(TargetParams.partial(), () => this.#store.list())],
      [
        'cancel',
        method(WatchIdParams, (params) => {
          this.#store.cancel(params.id);
          this.#watcher.cancel(params.id);
          return { cancelled: params.id };
        }),
      ],
      ['observations', method(ObservationsParams, (params) => this.#store.observations(params))],
      ['follow', method(FollowParams, (params) => (this.#store.follow(params.id, params.group), this.#store.get(params.id)))],
      ['unfollow', method(FollowParams, (params) => ({ unfollowed: this.#store.unfollow(params.id, params.group) }))],
      ['claim', method(ClaimParams, (params) => this.#store.claim(params.group) ?? null)],
    ]);
  }
}

function parse<S extends z.ZodType>(schema: S, params: unknown): z.infer<S> {
  const parsed = schema.safeParse(params);
  if (parsed.success) return parsed.data;
  const where = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'params'}: ${issue.message}`).join('; ');
  throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `invalid params: ${where}`);
}
