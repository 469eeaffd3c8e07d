/**
 * The gateway: takes the lease of every configured group in the store (a
 * second gateway on the same store is refused, naming the first), builds one
 * runtime per group (each with its own kernel, so its tools work in its
 * workspace), then serves the protocol on the socket. It reports ready only
 * after every group loaded.
 *
 * As a worker (`--worker`) it joins a pool instead: it starts its services
 * with no group, then takes and gives back groups as its fair share changes
 * (worker-pool.ts); calls for groups it does not own go to their owners
 * (handoff.ts) and their events come back (relay.ts).
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import type { DataSource } from 'typeorm';
import {
  ContainerModule,
  ErrorCodes,
  XdogError,
  createGatewayHooks,
  createKernel,
  defaultGroupOf,
  describeError,
  hostTelemetryModule,
  resolveConfigPath,
  type ClawGroupConfig,
  type Clock,
  type Kernel,
  type XdogConfig,
} from '../../core/index.js';
import { LIMITS } from '../../core/limits.js';
import type { LeaseOwner, SessionStore } from '../sessions/tokens.js';
import { withGroupSandbox } from './group-sandbox.js';
import { GroupRuntime } from './group-runtime.js';
import { gatewayLocations, type GatewayLocations } from './locations.js';
import { FollowedRuns } from './followed-runs.js';
import { Handoffs, groupOfCall } from './handoff.js';
import { addServiceMethods, cancellableMethods, createMethods, groupResolver, type MethodHandler } from './methods.js';
import { CAPABILITIES, MethodParams, PROTOCOL_VERSION, type GatewayStatus, type ParamsOf, type PromptReceipt } from './protocol.js';
import { Relay } from './relay.js';
import { assertSpendAllowed } from './spend.js';
import { ClawGroupToken, GatewayServiceContribution, type ClawGroupContext, type GatewayHost, type GatewayService } from './services.js';
import { Subscriptions } from './subscriptions.js';
import { TranscriptReader } from './transcript.js';
import { Uploads } from './uploads.js';
import { RpcServer, ensureRuntimeDir, readOrCreateToken } from './transport/index.js';
import { openWakeups, type Wakeups } from './wakeups.js';
import { WorkerPool } from './worker-pool.js';
import { workersReport } from './workers-report.js';
import type { z } from 'zod';

/** Why a gateway's runs end when it stops (their run.end says "...; the run was interrupted"). */
const GATEWAY_STOPPED = 'the gateway stopped';

/** Plugins that serve the gateway itself; group kernels leave them out. */
const GATEWAY_PLUGINS = new Set(['claw-gateway', 'sessions', 'claw-scheduler', 'claw-runs']);

export interface GatewayOptions {
  /** The process kernel: config and the installed plugins. */
  kernel: Kernel;
  store: SessionStore;
  /** The store's DataSource, handed to gateway services. */
  dataSource: DataSource;
  /** Where the store lives, for status (a file path or a redacted URL). */
  storeLocation: string;
  clock: Clock;
  version: string;
  locations?: GatewayLocations;
  log?: (line: string) => void;
  /** Join the pool of workers sharing the store (a fair share of the groups) instead of taking every group. */
  worker?: { name?: string };
}

/** Milliseconds a lease lasts: claw.lease_seconds, else LIMITS.clawLeaseSeconds. */
export function leaseMsOf(config: XdogConfig): number {
  return (config.claw?.lease_seconds ?? LIMITS.clawLeaseSeconds) * 1000;
}

/** Expands "~/" and resolves a relative path (only from a config given as data: a loaded file's are absolute) against the current directory; the directory must exist. */
export function resolveWorkspace(group: string, workspace: string): string {
  const absolute = resolveConfigPath(workspace, process.cwd());
  if (!fs.statSync(absolute, { throwIfNoEntry: false })?.isDirectory()) {
    throw new XdogError(ErrorCodes.CONFIG_INVALID, `claw.groups.${group}.workspace: ${absolute} is not a directory`, { hint: 'create it, or point the group at an existing directory' });
  }
  return absolute;
}

function checkConfig(config: XdogConfig): Record<string, ClawGroupConfig> {
  const groups = config.claw?.groups ?? {};
  if (Object.keys(groups).length === 0) {
    throw new XdogError(ErrorCodes.CONFIG_INVALID, 'no claw groups are configured, so the gateway has nothing to serve', { hint: 'add one with `xdog claw onboard` (or claw.groups in the config file; see docs/claw.md)' });
  }
  const defaultGroup = config.claw?.default_group;
  if (defaultGroup && !groups[defaultGroup]) throw new XdogError(ErrorCodes.CONFIG_INVALID, `claw.default_group names "${defaultGroup}", which is not under claw.groups`, { hint: `use one of: ${Object.keys(groups).join(', ')}` });
  for (const [name, group] of Object.entries(groups)) {
    for (const server of group.mcp_servers ?? []) {
      if (!config.mcp_servers?.[server]) throw new XdogError(ErrorCodes.CONFIG_INVALID, `claw.groups.${name}.mcp_servers names "${server}", which is not under mcp_servers`, { hint: 'declare the server under mcp_servers, or remove it from the group' });
    }
  }
  return groups;
}

/** The gateway services the process kernel's plugins contribute; two with one name fail. */
function servicesOf(kernel: Kernel): GatewayService[] {
  const services = kernel.getAll(GatewayServiceContribution);
  const seen = new Set<string>();
  for (const service of services) {
    if (seen.has(service.name)) throw new XdogError(ErrorCodes.PLUGIN_INVALID, `two gateway services are named "${service.name}"`, { hint: 'uninstall or rename one of the plugins that contribute it' });
    seen.add(service.name);
  }
  return services;
}

export class Gateway {
  readonly startedAt: number;
  readonly locations: GatewayLocations;
  readonly hooks = createGatewayHooks<GroupRuntime>();
  readonly #options: GatewayOptions;
  /** Services started so far, in start order. */
  readonly #services: GatewayService[] = [];
  /** Groups served now (loaded and announced). */
  readonly #groups = new Map<string, GroupRuntime>();
  /** Groups being loaded, so close() also closes a half-loaded one. */
  readonly #loading = new Map<string, GroupRuntime>();
  readonly #owner: LeaseOwner;
  readonly #subscriptions = new Subscriptions((line) => this.#log(line));
  readonly #leaseMs: number;
  #server?: RpcServer;
  #renewal?: NodeJS.Timeout;
  #closing?: Promise<void>;
  #pool?: WorkerPool;
  #wakeups?: Wakeups;
  #handoffs?: Handoffs;
  #relay?: Relay;

  private constructor(options: GatewayOptions) {
    this.#options = options;
    this.locations = options.locations ?? gatewayLocations();
    this.startedAt = options.clock.now();
    this.#owner = { ownerId: randomUUID(), pid: process.pid, host: os.hostname(), info: `socket ${this.locations.socket}` };
    this.#leaseMs = leaseMsOf(options.kernel.config);
  }

  /** Loads every group (or, as a worker, joins the pool) and starts serving; on any failure everything started so far is closed again. */
  static async start(options: GatewayOptions): Promise<Gateway> {
    const gateway = new Gateway(options);
    try {
      await gateway.#start();
    } catch (error) {
      await gateway.close().catch(() => undefined);
      throw error;
    }
    return gateway;
  }

  async #start(): Promise<void> {
    const { kernel, store, clock, dataSource } = this.#options;
    const groups = checkConfig(kernel.config);
    const configured = new Set(Object.keys(groups));
    for (const name of configured) await store.ensureGroup(name);
    if (!this.#options.worker) {
      for (const name of configured) await store.acquireLease(name, this.#owner, clock.now(), this.#leaseMs);
      for (const name of configured) await this.#openGroup(name);
      for (const runtime of this.#groups.values()) await this.hooks.groupReady.promise(runtime);
      this.#renewal = setInterval(() => void this.#renewLeases(), this.#leaseMs / 3);
      this.#renewal.unref();
    }

    ensureRuntimeDir(this.locations.runtimeRoot, this.locations.runtimeDir);
    const token = readOrCreateToken(this.locations.token);
    const defaultGroup = defaultGroupOf(kernel.config);
    const uploads = new Uploads();
    const methods = createMethods({
      groups: this.#groups,
      defaultGroup,
      configured,
      store,
      subscriptions: this.#subscriptions,
      transcripts: new TranscriptReader(store),
      uploads,
      status: () => this.status(),
      workers: () => workersReport(store, { now: clock.now(), leaseMs: this.#leaseMs, configured: [...configured], self: this.#pool?.worker.id ?? null }),
      sessionResumed: (group, sessionId) => this.hooks.sessionResumed.promise({ group, sessionId, at: clock.now() }),
    });
    const services = servicesOf(kernel);
    addServiceMethods(methods, services);
    const host: GatewayHost = {
      kernel,
      store,
      dataSource,
      clock,
      hooks: this.hooks,
      groups: this.#groups,
      group: groupResolver(this.#groups, defaultGroup, configured),
      publish: (group, sessionId, method, params) => this.#publish(group, sessionId, method, params),
      followedWith: (group, feature) => this.#subscriptions.followedWith(group, feature) || this.#relay?.followedElsewhere(group) === true,
      log: (line) => this.#log(line),
      locations: this.locations,
      inputImages: (connection, images) => uploads.resolve(connection, images),
    };
    if (this.#options.worker) await this.#joinPool(methods, services, configured, defaultGroup);
    // The worker's one LISTEN connection, shared with services that wake other workers (the job queue).
    const shared: GatewayHost = this.#wakeups ? { ...host, wakeups: this.#wakeups } : host;
    for (const service of services) {
      // Recorded before starting, so close() stops a half-started service too.
      this.#services.push(service);
      await service.start?.(shared);
    }
    // A worker takes its first share once its services follow groups: each arrives with groupReady.
    await this.#pool?.start();
    const capabilities = [...CAPABILITIES, ...services.flatMap((service) => service.capabilities ?? [])];
    // The server's log (cut connections, internal errors) goes to the gateway log.
    this.#server = new RpcServer({ socketPath: this.locations.socket, token, protocolVersion: PROTOCOL_VERSION, capabilities, methods, cancellable: cancellableMethods(services), serverVersion: this.#options.version, log: (line) => this.#log(line) });
    await this.#server.listen();
  }

  /** Worker mode: the pool, handoffs and relay, and every method routed to the owner of the group it names. */
  async #joinPool(methods: Map<string, MethodHandler>, services: readonly GatewayService[], configured: ReadonlySet<string>, defaultGroup: string | undefined): Promise<void> {
    const { store, clock, dataSource } = this.#options;
    const log = (line: string): void => this.#log(line);
    const owns = (group: string): boolean => this.#groups.has(group);
    const workerId = this.#owner.ownerId;
    this.#wakeups = await openWakeups(dataSource, log);
    const handoffs = new Handoffs({ store, clock, wakeups: this.#wakeups, workerId, owns, owned: () => [...this.#groups.keys()], log });
    // Runs of other owners that clients here wait for: ended here when their owner vanishes.
    const followedRuns = new FollowedRuns({
      store,
      clock,
      followed: () => this.#subscriptions.groups(),
      publish: (group, sessionId, method, params) => this.#subscriptions.publish(group, sessionId, method, params),
      log,
    });
    const relay = new Relay({ store, clock, wakeups: this.#wakeups, workerId, leaseMs: this.#leaseMs, subscriptions: this.#subscriptions, owns, relayed: (group, method, params) => followedRuns.relayed(group, method, params), log });
    this.#handoffs = handoffs;
    this.#relay = relay;
    // Before each run, so a client that subscribed elsewhere a moment ago gets the run's events.
    // A failure here must not fail the run: the heartbeat refreshes interest anyway.
    // Fencing: no run starts on a group whose lease could run out under it.
    this.hooks.runStarting.tapPromise('claw-workers-lease', async (info) => this.#pool?.untilLeaseFresh(info.group));
    this.hooks.runStarting.tapPromise('claw-workers-relay', () => relay.interestForRun().catch((error: unknown) => log(`could not re-read relay interest: ${describeError(error)}`)));

    const schemas = new Map<string, z.ZodType>(Object.entries(MethodParams));
    for (const service of services) for (const [name, method] of Object.entries(service.methods ?? {})) schemas.set(name, method.params);
    const local = new Map(methods);
    handoffs.serve(local);
    for (const [name, handler] of local) {
      const schema = schemas.get(name)!;
      methods.set(name, async (params, connection, job) => {
        const group = groupOfCall(name, schema, params, defaultGroup);
        if (group === undefined || !configured.has(group) || owns(group)) return handler(params, connection, job);
        const answer = await handoffs.call(group, name, params);
        if (name === 'prompt') followedRuns.accepted(answer as PromptReceipt);
        return answer;
      });
    }
    const subscribe = local.get('subscribe')!;
    methods.set('subscribe', async (raw, connection) => {
      const parsed = MethodParams.subscribe.safeParse(raw ?? {});
      const group = parsed.success ? (parsed.data.group ?? defaultGroup) : undefined;
      if (group === undefined || !configured.has(group) || owns(group)) return subscribe(raw, connection);
      return this.#subscribeRemote(group, parsed.data as ParamsOf<'subscribe'>, connection);
    });

    const name = this.#options.worker?.name?.trim() || `${os.hostname()}:${process.pid}`;
    const now = clock.now();
    this.#pool = new WorkerPool({
      store,
      clock,
      worker: { id: workerId, name, pid: process.pid, host: os.hostname(), socket: this.locations.socket, startedAt: now, heartbeatAt: now },
      owner: this.#owner,
      leaseMs: this.#leaseMs,
      configured: [...configured],
      groups: {
        owned: () => [...this.#groups.keys()],
        idle: (group) => this.#groups.get(group)?.busy === false,
        open: async (group) => {
          const runtime = await this.#openGroup(group);
          try {
            await this.hooks.groupReady.promise(runtime);
          } catch (error) {
            // Not served half-ready: the pool gives the lease back, and a served group without a lease breaks the one-owner rule.
            await this.#closeGroup(group, false);
            throw error;
          }
        },
        close: (group, release) => this.#closeGroup(group, release),
      },
      fence: async (group) => {
        // The run stops at once, before the services hear of it: the lease is about to run out.
        const ending = this.#groups.get(group)?.endRuns(`this worker could not renew the lease of group ${group}`);
        await this.#closeGroup(group, false);
        await ending;
      },
      onTick: async () => {
        await relay.tick();
        // The owner's last relayed events first: a run that ended on its way out is not reported interrupted.
        await relay.read();
        await followedRuns.check();
      },
      log,
    });
  }

  /** Subscribes a connection here to a group another worker owns: its events come through the relay. */
  async #subscribeRemote(group: string, params: ParamsOf<'subscribe'>, connection: Parameters<MethodHandler>[1]): Promise<unknown> {
    const { store } = this.#options;
    if (params.sessionId) {
      const session = await store.getSession(params.sessionId);
      if (session.group !== group) throw new XdogError(ErrorCodes.NOT_FOUND, `session ${params.sessionId} belongs to group ${session.group}, not ${group}`, { hint: 'name its own group' });
    }
    // Interest first: the owner relays from the moment it sees it.
    await this.#relay!.follow(group);
    const status = await this.#handoffs!.call(group, 'group.status', { group });
    return { subscriptionId: this.#subscriptions.add(connection, group, params.sessionId), group: status };
  }

  /** Builds a group's runtime and loads it; it is served (in #groups) once loaded. */
  async #openGroup(name: string): Promise<GroupRuntime> {
    const { kernel, store, clock, dataSource } = this.#options;
    const config = kernel.config.claw!.groups![name]!;
    const workspace = resolveWorkspace(name, config.workspace);
    const plugins = kernel.plugins().filter((entry) => !GATEWAY_PLUGINS.has(entry.plugin.name));
    const groupContext: ClawGroupContext = { name, workspace, store, dataSource, clock };
    // A host's own TracerProvider (on the process kernel) traces the group too; else the group builds the config's pipeline.
    const hostTelemetry = hostTelemetryModule(kernel);
    const groupKernel = await createKernel({
      plugins: plugins.map((entry) => entry.discovered ?? entry.plugin),
      // The group's kernel carries the group's sandbox as its own: its tools, MCP servers and extensions run in it.
      config: withGroupSandbox(kernel.config, name),
      cwd: workspace,
      overrides: [new ContainerModule((options) => void options.bind(ClawGroupToken).toConstantValue(groupContext)), ...(hostTelemetry ? [hostTelemetry] : [])],
    });
    const runtime = new GroupRuntime({
      name,
      config,
      workspace,
      kernel: groupKernel,
      store,
      clock,
      publish: (sessionId, method, params) => this.#publish(name, sessionId, method, params),
      onRunEnded: (info) => this.hooks.runEnded.call(info),
      onRunStarting: (info) => this.hooks.runStarting.promise(info),
      beforeModelCall: (info) => assertSpendAllowed(this.hooks, { phase: 'call', group: info.group, sessionId: info.sessionId, source: info.source, runStartedAt: info.runStartedAt }),
      log: (line) => this.#log(line),
    });
    // Registered before opening, so close() releases a half-started group too.
    this.#loading.set(name, runtime);
    try {
      await groupKernel.open();
      await runtime.init();
    } catch (error) {
      this.#loading.delete(name);
      await runtime.close().catch(() => undefined);
      throw error;
    }
    this.#loading.delete(name);
    this.#groups.set(name, runtime);
    return runtime;
  }

  /** Gives one group up while the gateway runs: groupClosing, then its runtime closes; `release` gives its lease back. */
  async #closeGroup(name: string, release: boolean): Promise<void> {
    const runtime = this.#groups.get(name);
    if (!runtime) return;
    await this.hooks.groupClosing.promise(runtime).catch((error: unknown) => this.#log(`a service failed while group ${name} closed: ${describeError(error)}`));
    this.#groups.delete(name);
    await runtime.close(`this worker stopped serving group ${name}`).catch((error: unknown) => this.#log(`group ${name} did not close cleanly: ${describeError(error)}`));
    if (release) await this.#options.store.releaseLease(name, this.#owner.ownerId).catch((error: unknown) => this.#log(`could not give the lease of ${name} back (${describeError(error)}); the next renewal gives it back`));
  }

  /** Never throws into the run that publishes: what clients watch never changes what runs or what is stored. */
  #publish(group: string, sessionId: string | null, method: string, params: unknown): void {
    this.#subscriptions.publish(group, sessionId, method, params);
    try {
      this.#relay?.publish(group, sessionId, method, params);
    } catch (error) {
      this.#log(`could not relay a ${method} notification of group ${group} (${describeError(error)}); clients on other workers miss it`);
    }
  }

  status(): GatewayStatus {
    return {
      ...(this.#pool ? { worker: { id: this.#pool.worker.id, name: this.#pool.worker.name } } : {}),
      pid: process.pid,
      protocol: PROTOCOL_VERSION,
      version: this.#options.version,
      startedAt: this.startedAt,
      store: this.#options.storeLocation,
      socket: this.locations.socket,
      groups: [...this.#groups.values()].map((runtime) => runtime.status()),
    };
  }

  /** Stops serving, ends the runs (their committed work stays), closes the groups and releases the leases. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    clearInterval(this.#renewal);
    const errors: string[] = [];
    const note = (what: string) => (error: unknown) => void errors.push(`${what}: ${describeError(error)}`);
    await this.#pool?.stop().catch(note('worker pool'));
    this.#handoffs?.stopServing();
    // The runs end first, while the connections are open: their clients (and the run log, the
    // scheduler) hear each end as `interrupted`, not a closed connection.
    for (const service of this.#services) {
      try {
        service.stopping?.();
      } catch (error) {
        note(`service ${service.name}`)(error);
      }
    }
    const runtimes = [...this.#groups.values(), ...this.#loading.values()];
    await Promise.all(runtimes.map((runtime) => runtime.endRuns(GATEWAY_STOPPED).catch(note(`group ${runtime.name}`))));
    await this.#relay?.close().catch(note('relay'));
    await this.#server?.close().catch(note('socket'));
    await this.#handoffs?.drain().catch(note('handoffs'));
    for (const service of [...this.#services].reverse()) {
      await Promise.resolve()
        .then(() => service.stop?.())
        .catch(note(`service ${service.name}`));
    }
    await Promise.all(runtimes.map((runtime) => runtime.close(GATEWAY_STOPPED).catch(note(`group ${runtime.name}`))));
    await this.#relay?.close().catch(note('relay'));
    await this.#options.store.releaseLeases(this.#owner.ownerId).catch(note('leases'));
    await this.#pool?.leave().catch(note('worker registry'));
    await this.#wakeups?.close().catch(note('wake-ups'));
    if (errors.length) throw new XdogError(ErrorCodes.INTERNAL, `the gateway did not close cleanly: ${errors.join('; ')}`);
  }

  async #renewLeases(): Promise<void> {
    try {
      for (const name of this.#groups.keys()) await this.#options.store.acquireLease(name, this.#owner, this.#options.clock.now(), this.#leaseMs);
    } catch (error) {
      // Another owner has the group now: serving it on would break the one-owner rule.
      this.#log(`lost a group lease (${describeError(error)}); shutting down`);
      process.kill(process.pid, 'SIGTERM');
    }
  }

  #log(line: string): void {
    this.#options.log?.(line);
  }
}
