/**
 * The gateway: takes the lease of every configured group in the store (a
 * second gateway on the same store is refused, naming the first), builds one
 * runtime per group (each with its own kernel, so its tools work in its
 * workspace), then serves the protocol on the socket. It reports ready only
 * after every group loaded.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import {
  ContainerModule,
  ErrorCodes,
  XdogError,
  createGatewayHooks,
  createKernel,
  describeError,
  type ClawGroupConfig,
  type Clock,
  type Kernel,
  type XdogConfig,
} from '../../core/index.js';
import { LIMITS } from '../../core/limits.js';
import type { LeaseOwner, SessionStore } from '../sessions/index.js';
import { GroupRuntime } from './group-runtime.js';
import { gatewayLocations, type GatewayLocations } from './locations.js';
import { addServiceMethods, createMethods, groupResolver } from './methods.js';
import { CAPABILITIES, PROTOCOL_VERSION, type GatewayStatus } from './protocol.js';
import { ClawGroupToken, GatewayServiceContribution, type ClawGroupContext, type GatewayHost, type GatewayService } from './services.js';
import { Subscriptions } from './subscriptions.js';
import { TranscriptReader } from './transcript.js';
import { RpcServer, ensurePrivateDir, readOrCreateToken } from './transport/index.js';

/** Plugins that serve the gateway itself; group kernels leave them out. */
const GATEWAY_PLUGINS = new Set(['claw-gateway', 'sessions', 'claw-scheduler']);

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
}

/** Expands "~/" and resolves against the current directory; the directory must exist. */
export function resolveWorkspace(group: string, workspace: string): string {
  const expanded = workspace === '~' || workspace.startsWith('~/') ? path.join(os.homedir(), workspace.slice(1)) : workspace;
  const absolute = path.resolve(expanded);
  if (!fs.statSync(absolute, { throwIfNoEntry: false })?.isDirectory()) {
    throw new XdogError(ErrorCodes.CONFIG_INVALID, `claw.groups.${group}.workspace: ${absolute} is not a directory`, { hint: 'create it, or point the group at an existing directory' });
  }
  return absolute;
}

/** The group a request without one goes to: claw.default_group, else the only group, else "main" when configured. */
export function defaultGroupOf(config: XdogConfig): string | undefined {
  const groups = Object.keys(config.claw?.groups ?? {});
  if (config.claw?.default_group) return config.claw.default_group;
  if (groups.length === 1) return groups[0];
  return groups.includes('main') ? 'main' : undefined;
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
  readonly #groups = new Map<string, GroupRuntime>();
  readonly #owner: LeaseOwner;
  #server?: RpcServer;
  #renewal?: NodeJS.Timeout;
  #closing?: Promise<void>;

  private constructor(options: GatewayOptions) {
    this.#options = options;
    this.locations = options.locations ?? gatewayLocations();
    this.startedAt = options.clock.now();
    this.#owner = { ownerId: randomUUID(), pid: process.pid, host: os.hostname(), info: `socket ${this.locations.socket}` };
  }

  /** Loads every group and starts serving; on any failure everything started so far is closed again. */
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
    for (const name of Object.keys(groups)) {
      await store.ensureGroup(name);
      await store.acquireLease(name, this.#owner, clock.now());
    }
    const plugins = kernel.plugins().filter((entry) => !GATEWAY_PLUGINS.has(entry.plugin.name));
    const subscriptions = new Subscriptions();
    for (const [name, config] of Object.entries(groups)) {
      const workspace = resolveWorkspace(name, config.workspace);
      const groupContext: ClawGroupContext = { name, workspace, store, dataSource, clock };
      const groupKernel = await createKernel({
        plugins: plugins.map((entry) => entry.discovered ?? entry.plugin),
        config: kernel.config,
        cwd: workspace,
        overrides: [new ContainerModule((options) => void options.bind(ClawGroupToken).toConstantValue(groupContext))],
      });
      const runtime = new GroupRuntime({
        name,
        config,
        workspace,
        kernel: groupKernel,
        store,
        clock,
        publish: (sessionId, method, params) => subscriptions.publish(name, sessionId, method, params),
        onRunEnded: (info) => this.hooks.runEnded.call(info),
        onRunStarting: (info) => this.hooks.runStarting.promise(info),
        log: (line) => this.#log(line),
      });
      // Registered before opening, so close() releases a half-started group too.
      this.#groups.set(name, runtime);
      await groupKernel.open();
      await runtime.init();
    }
    for (const runtime of this.#groups.values()) await this.hooks.groupReady.promise(runtime);
    this.#renewal = setInterval(() => void this.#renewLeases(), (LIMITS.clawLeaseSeconds * 1000) / 3);
    this.#renewal.unref();

    ensurePrivateDir(this.locations.runtimeDir);
    const token = readOrCreateToken(this.locations.token);
    const defaultGroup = defaultGroupOf(kernel.config);
    const methods = createMethods({
      groups: this.#groups,
      defaultGroup,
      store,
      subscriptions,
      transcripts: new TranscriptReader(store),
      status: () => this.status(),
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
      group: groupResolver(this.#groups, defaultGroup),
      publish: (group, sessionId, method, params) => subscriptions.publish(group, sessionId, method, params),
      log: (line) => this.#log(line),
    };
    for (const service of services) {
      // Recorded before starting, so close() stops a half-started service too.
      this.#services.push(service);
      await service.start?.(host);
    }
    const capabilities = [...CAPABILITIES, ...services.flatMap((service) => service.capabilities ?? [])];
    this.#server = new RpcServer({ socketPath: this.locations.socket, token, protocolVersion: PROTOCOL_VERSION, capabilities, methods, serverVersion: this.#options.version });
    await this.#server.listen();
  }

  status(): GatewayStatus {
    return {
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
    await this.#server?.close().catch((error: unknown) => errors.push(`socket: ${describeError(error)}`));
    for (const service of [...this.#services].reverse()) {
      await Promise.resolve()
        .then(() => service.stop?.())
        .catch((error: unknown) => errors.push(`service ${service.name}: ${describeError(error)}`));
    }
    await Promise.all([...this.#groups.values()].map((runtime) => runtime.close().catch((error: unknown) => errors.push(`group ${runtime.name}: ${describeError(error)}`))));
    await this.#options.store.releaseLeases(this.#owner.ownerId).catch((error: unknown) => errors.push(`leases: ${describeError(error)}`));
    if (errors.length) throw new XdogError(ErrorCodes.INTERNAL, `the gateway did not close cleanly: ${errors.join('; ')}`);
  }

  async #renewLeases(): Promise<void> {
    try {
      for (const name of this.#groups.keys()) await this.#options.store.acquireLease(name, this.#owner, this.#options.clock.now());
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
