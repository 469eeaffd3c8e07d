/**
 * The kernel: one inversify container per `createKernel()` call (no process
 * singletons), the plugins loaded into it, and the kernel-level hooks.
 *
 * Lifecycle: select → import → bind module → apply (all in createKernel) →
 * open (kernel.open(), in order) → close (kernel.close(), reverse order).
 * A failed open closes the plugins already opened, in reverse order.
 */
import 'reflect-metadata';
import { stat } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { Container, type ContainerModule } from 'inversify';
import { createKernelHooks, type KernelHooks } from '../hooks/kernel.js';
import { Agent } from './agent/agent.js';
import type { AgentConfig, AgentOptions } from './agent/types.js';
import type { ModelStreamFn } from './model/types.js';
import type { XdogConfig } from './config.js';
import type { DiscoveredPlugin } from './discovery.js';
import { nonRegularKind } from './bounded-read.js';
import { ErrorCodes, XdogError, describeError } from './errors.js';
import { isXdogPlugin, type XdogPlugin } from './plugin.js';
import { ContributionOverrideToken, type ContributionOverride, collectContributions, contributionKindOf, guardModule } from './contributions.js';
import { tapPluginHooks, checkPackagedSkills } from './plugin-shorthands.js';
import { ApprovalBrokerToken, ClockToken, Config, KernelToken, SystemClockImpl, WorkingDirectory, type Token } from './tokens.js';

export type PluginState = 'loaded' | 'opening' | 'open' | 'failed' | 'closed';

/** A plugin the kernel holds, and where it came from. */
export interface LoadedPlugin {
  plugin: XdogPlugin;
  /** Set when the plugin was found by discovery. */
  discovered?: DiscoveredPlugin;
  state: PluginState;
}

export interface KernelOptions {
  /** Plugins to load: definitions, or discovered records to import. Order is open order. */
  plugins?: ReadonlyArray<XdogPlugin | DiscoveredPlugin>;
  config?: XdogConfig;
  /** Host modules; they load last and may `rebind` any token. */
  overrides?: readonly ContainerModule[];
  cwd?: string;
}

export class Kernel {
  readonly container: Container;
  readonly hooks: KernelHooks<Agent>;
  readonly config: XdogConfig;
  readonly #plugins: LoadedPlugin[] = [];
  #opened: LoadedPlugin[] = [];
  #state: 'loaded' | 'open' | 'closed' = 'loaded';
  /** The running open(), so a close() meanwhile can wait for it. */
  #opening?: Promise<void>;
  /** Agents this kernel created and that are still open; close() closes them first. */
  readonly #agents = new Set<Agent>();

  /** Use `createKernel()`. */
  constructor(config: XdogConfig, cwd: string) {
    this.config = config;
    this.container = new Container({ defaultScope: 'Singleton' });
    this.hooks = createKernelHooks<Agent>();
    this.container.bind(KernelToken).toConstantValue(this);
    this.container.bind(Config).toConstantValue(config);
    this.container.bind(WorkingDirectory).toConstantValue(cwd);
    this.container.bind(ClockToken).to(SystemClockImpl).inSingletonScope();
  }

  /**
   * Creates an Agent wired to the plugins: fires `agentCreated` (plugins tap
   * `agent.hooks` there) and, when that agent closes, `agentClosed`.
   */
  createAgent(streamFn: ModelStreamFn, config: AgentConfig, options: AgentOptions = {}): Agent {
    if (this.#state === 'closed') {
      throw new XdogError(ErrorCodes.CLOSED, 'the kernel is closed; its plugins no longer serve agents', { hint: 'create agents before kernel.close(), or build a new kernel' });
    }
    // A host-bound broker answers asked tool calls unless the caller brought its own.
    const approvals = options.approvals ?? (this.container.isBound(ApprovalBrokerToken) ? this.container.get(ApprovalBrokerToken) : undefined);
    const agent = new Agent(streamFn, config, approvals ? { ...options, approvals } : options);
    this.#agents.add(agent);
    agent.onClose(() => {
      this.#agents.delete(agent);
      this.hooks.agentClosed.call(agent);
    });
    try {
      this.hooks.agentCreated.call(agent);
    } catch (error) {
      void agent.close();
      throw new XdogError(ErrorCodes.HOOK_FAILED, `an agentCreated tap failed: ${describeError(error)}`, { cause: error });
    }
    return agent;
  }

  /** The service bound to a token. */
  get<T>(service: Token<T>): T {
    return this.container.get<T>(service);
  }

  /**
   * Every contribution bound to a multi-binding token (empty when none). For
   * tools, model providers and capabilities: after the host's per-name
   * overrides, and failing when two share a name.
   */
  getAll<T>(service: Token<T>): T[] {
    const values = this.container.isBound(service) ? this.container.getAll<T>(service) : [];
    if (!contributionKindOf(service)) return values;
    const overrides = this.container.isBound(ContributionOverrideToken) ? this.container.getAll<ContributionOverride>(ContributionOverrideToken) : [];
    return collectContributions(service, values, overrides, (token) => this.get(token));
  }

  isBound(service: Token<unknown>): boolean {
    return this.container.isBound(service);
  }

  /** The loaded plugins, in load order, with their state. */
  plugins(): ReadonlyArray<Readonly<LoadedPlugin>> {
    return this.#plugins.map((entry) => ({ ...entry }));
  }

  /** @internal used by createKernel. */
  addPlugin(entry: LoadedPlugin): void {
    if (this.#plugins.some((other) => other.plugin.name === entry.plugin.name)) {
      throw new XdogError(ErrorCodes.PLUGIN_CONFLICT, `plugin "${entry.plugin.name}" is selected twice`, {
        hint: 'select each plugin once',
      });
    }
    this.#plugins.push(entry);
  }

  /**
   * Opens every plugin in order. On a failure, closes the opened ones in
   * reverse order and throws. A `close()` meanwhile stops it after the plugin
   * being opened (open() then fails with CLOSED).
   */
  async open(): Promise<void> {
    if (this.#state !== 'loaded') throw new XdogError(ErrorCodes.INVALID_STATE, `kernel is ${this.#state}; open() runs once`);
    this.#state = 'open';
    this.#opening = this.#openAll();
    try {
      await this.#opening;
    } finally {
      this.#opening = undefined;
    }
  }

  async #openAll(): Promise<void> {
    for (const entry of this.#plugins) {
      if (this.#state === 'closed') {
        throw new XdogError(ErrorCodes.CLOSED, `the kernel was closed while opening; plugin "${entry.plugin.name}" and those after it were not opened`, {
          hint: 'create a new kernel to open the plugins again',
        });
      }
      entry.state = 'opening';
      try {
        await entry.plugin.open?.({ kernel: this, dir: entry.discovered?.dir });
        entry.state = 'open';
        this.#opened.push(entry);
      } catch (error) {
        entry.state = 'failed';
        const closeErrors = await this.#closeOpened();
        this.#state = 'closed';
        const suffix = closeErrors.length ? `; closing the others also failed: ${closeErrors.join('; ')}` : '';
        throw new XdogError(ErrorCodes.PLUGIN_OPEN_FAILED, `plugin "${entry.plugin.name}" failed to open: ${describeError(error)}${suffix}`, {
          cause: error,
          hint: 'fix or deselect that plugin; the plugins opened before it were closed',
        });
      }
    }
  }

  /** Closes the agents it created, then the opened plugins in reverse order. Every close runs even if one fails; then the failures are thrown. */
  async close(): Promise<void> {
    if (this.#state === 'closed') return;
    this.#state = 'closed';
    // A plugin still opening is waited for, so it is closed too rather than leaked.
    await this.#opening?.catch(() => undefined);
    // Agents go first: a run must not outlive the plugins whose tools and models it uses.
    await Promise.all([...this.#agents].map((agent) => agent.close()));
    const errors = await this.#closeOpened();
    if (errors.length) throw new XdogError(ErrorCodes.PLUGIN_OPEN_FAILED, `closing plugins failed: ${errors.join('; ')}`);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  async #closeOpened(): Promise<string[]> {
    const errors: string[] = [];
    for (const entry of this.#opened.reverse()) {
      try {
        await entry.plugin.close?.({ kernel: this, dir: entry.discovered?.dir });
        entry.state = 'closed';
      } catch (error) {
        entry.state = 'failed';
        errors.push(`${entry.plugin.name}: ${describeError(error)}`);
      }
    }
    this.#opened = [];
    return errors;
  }
}

function isDiscovered(value: XdogPlugin | DiscoveredPlugin): value is DiscoveredPlugin {
  return typeof (value as DiscoveredPlugin).entry === 'string' && typeof (value as DiscoveredPlugin).source === 'string';
}

/** Imports a discovered plugin's entry and checks its default export. */
export async function importPlugin(discovered: DiscoveredPlugin): Promise<XdogPlugin> {
  const where = `${discovered.packageName} (${discovered.source}: ${discovered.dir})`;
  let module: { default?: unknown };
  try {
    // import() of a FIFO or a device would wait or read for ever.
    const kind = nonRegularKind(await stat(discovered.entry));
    if (kind) throw new Error(`its entry ${discovered.entry} is ${kind}, not a regular file`);
    module = await import(pathToFileURL(discovered.entry).href);
  } catch (error) {
    throw new XdogError(ErrorCodes.PLUGIN_LOAD_FAILED, `plugin "${discovered.name}" from ${where} failed to load: ${describeError(error)}`, {
      cause: error,
      hint: `reinstall or uninstall it (xdog plugins uninstall ${discovered.packageName})`,
    });
  }
  const plugin = module.default;
  if (!isXdogPlugin(plugin)) {
    throw new XdogError(ErrorCodes.PLUGIN_INVALID, `plugin "${discovered.name}" from ${where}: ${discovered.entry} does not default-export a plugin`, {
      hint: 'export default definePlugin({...}) from the entry module',
    });
  }
  if (plugin.name !== discovered.name) {
    throw new XdogError(ErrorCodes.PLUGIN_INVALID, `plugin from ${where} is named "${plugin.name}" but its package.json declares "${discovered.name}"`, {
      hint: 'make the two names agree',
    });
  }
  return plugin;
}

/**
 * Builds a kernel: imports the selected plugins, binds their modules, then the
 * host overrides, then runs every `apply`. Starts nothing; call `open()`.
 */
export async function createKernel(options: KernelOptions = {}): Promise<Kernel> {
  const kernel = new Kernel(options.config ?? {}, options.cwd ?? process.cwd());
  for (const selected of options.plugins ?? []) {
    if (isDiscovered(selected)) kernel.addPlugin({ plugin: await importPlugin(selected), discovered: selected, state: 'loaded' });
    else kernel.addPlugin({ plugin: selected, state: 'loaded' });
  }
  const loaded = kernel.plugins();
  for (const { plugin, discovered } of loaded) {
    if (discovered && plugin.skills !== undefined) checkPackagedSkills(plugin, discovered);
    if (!plugin.module && !plugin.tools?.length) continue;
    try {
      await kernel.container.loadAsync(guardModule(plugin, discovered));
    } catch (error) {
      if (XdogError.is(error) && error.code === ErrorCodes.PLUGIN_INVALID) throw error;
      throw new XdogError(ErrorCodes.PLUGIN_LOAD_FAILED, `plugin "${plugin.name}": binding its module failed: ${describeError(error)}`, { cause: error });
    }
  }
  if (options.overrides?.length) await kernel.container.loadAsync(...options.overrides);
  for (const { plugin } of loaded) {
    try {
      plugin.apply?.(kernel);
      if (plugin.hooks) tapPluginHooks(kernel, plugin.name, plugin.hooks);
    } catch (error) {
      throw new XdogError(ErrorCodes.PLUGIN_LOAD_FAILED, `plugin "${plugin.name}": apply failed: ${describeError(error)}`, { cause: error });
    }
  }
  return kernel;
}
