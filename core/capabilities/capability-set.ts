/**
 * CapabilitySet: the host's choice of installed capabilities for one scope.
 * Building and selecting a set is inert (package.json files only); `open()`
 * imports and starts exactly the selected providers and yields a
 * `CapabilityAssembly` that owns them until it closes.
 */
import type { XdogConfig } from '../config.js';
import { discoverPlugins, type DiscoveredPlugin } from '../discovery.js';
import { ErrorCodes, XdogError, describeError } from '../errors.js';
import { createKernel, type Kernel } from '../kernel.js';
import { CapabilityContribution } from '../tokens.js';
import type { ToolRepo } from '../agent/tool-repo.js';
import { SkillRepo } from '../skills/skill-repo.js';
import { CapabilityAssembly, type OpenedCapability } from './assembly.js';
import type { CapabilityBinding, CapabilityHost, CapabilityInfo, CapabilityProvider, CapabilityScope } from './types.js';

/** Options of `new CapabilitySet()`. */
export interface CapabilitySetOptions {
  /** Host tools every agent of the assembly gets (added, never filtered). */
  toolRepo?: ToolRepo;
  /** Host skills every agent of the assembly gets (added, never filtered). */
  skillRepo?: SkillRepo;
  /** Take providers from this already-built kernel (the set does not own it). */
  kernel?: Kernel;
  /** Installed plugins to choose from (default: discovered from `cwd`). */
  plugins?: readonly DiscoveredPlugin[];
  cwd?: string;
  config?: XdogConfig;
}

const SCOPES: readonly CapabilityScope[] = ['application', 'session', 'group'];

export class CapabilitySet {
  readonly scope: CapabilityScope;
  readonly #options: CapabilitySetOptions;
  readonly #selection: readonly string[];
  #discovered?: readonly DiscoveredPlugin[];

  constructor(scope: CapabilityScope, options: CapabilitySetOptions = {}, selection: readonly string[] = []) {
    if (!SCOPES.includes(scope)) {
      throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `unknown capability scope ${JSON.stringify(scope)}`, { hint: `use one of: ${SCOPES.join(', ')}` });
    }
    this.scope = scope;
    this.#options = options;
    this.#selection = selection;
  }

  /** A set over the plugins a kernel has loaded. */
  static fromKernel(kernel: Kernel, scope: CapabilityScope, options: Omit<CapabilitySetOptions, 'kernel' | 'plugins'> = {}): CapabilitySet {
    return new CapabilitySet(scope, { ...options, kernel, config: options.config ?? kernel.config });
  }

  /** The selected capability names. */
  get selected(): readonly string[] {
    return this.#selection;
  }

  /** The installed capabilities, from package metadata only. */
  available(): CapabilityInfo[] {
    const kernel = this.#options.kernel;
    if (kernel) {
      return kernel.plugins().flatMap(({ plugin, discovered }) =>
        (plugin.provides?.capabilities ?? []).map((name) => ({
          name,
          plugin: plugin.name,
          packageName: discovered?.packageName ?? plugin.name,
          source: discovered?.source ?? 'host',
        })),
      );
    }
    return this.#plugins().flatMap((plugin) =>
      plugin.provides.capabilities.map((name) => ({ name, plugin: plugin.name, packageName: plugin.packageName, source: plugin.source })),
    );
  }

  /** A new set with these capabilities selected; an unknown name fails. Starts nothing. */
  select(names: Iterable<string>): CapabilitySet {
    const wanted = [...new Set(names)];
    const known = new Set(this.available().map((info) => info.name));
    for (const name of wanted) {
      if (!known.has(name)) {
        throw new XdogError(ErrorCodes.NOT_FOUND, `no installed capability named "${name}"`, {
          hint: `installed capabilities: ${[...known].sort().join(', ') || 'none'}; install the plugin that provides it`,
        });
      }
    }
    return new CapabilitySet(this.scope, this.#options, wanted);
  }

  /**
   * Imports and opens the selected providers, once each, for `host`.
   * Application scope may omit the host; session and group scopes need the
   * actual owner's port. A failed open closes what was opened before it.
   */
  async open(host?: CapabilityHost): Promise<CapabilityAssembly> {
    const port = this.#port(host);
    const { kernel, owned } = await this.#kernel();
    const opened: OpenedCapability[] = [];
    try {
      const providers = new Map(kernel.getAll(CapabilityContribution).map((provider) => [provider.name, provider]));
      for (const name of this.#selection) {
        const provider = this.#provider(providers, name);
        const packaged = this.#packagedSkills(kernel, name);
        let binding;
        try {
          binding = await provider.open({
            scope: this.scope,
            host: port,
            config: this.#options.config ?? kernel.config,
            toolRepo: this.#options.toolRepo,
            packagedSkills: packaged,
            kernel,
          });
        } catch (error) {
          throw new XdogError(ErrorCodes.PLUGIN_OPEN_FAILED, `capability "${name}" failed to open: ${describeError(error)}`, {
            cause: error,
            hint: 'fix or deselect that capability; the capabilities opened before it were closed',
          });
        }
        opened.push({ name, binding });
        assertSessionSkills(name, binding);
      }
    } catch (error) {
      await CapabilityAssembly.closeAll(opened, owned ? kernel : undefined).catch(() => undefined);
      throw error;
    }
    return new CapabilityAssembly(opened, {
      toolRepo: this.#options.toolRepo,
      skillRepo: this.#options.skillRepo,
      ownedKernel: owned ? kernel : undefined,
      scope: this.scope,
      hostId: port.id,
    });
  }

  #port(host: CapabilityHost | undefined): CapabilityHost {
    if (!host) {
      if (this.scope !== 'application') {
        throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `a ${this.scope}-scope capability set needs its owner's port`, {
          hint: `call open({scope: "${this.scope}", id: <the ${this.scope} id>})`,
        });
      }
      return { scope: 'application', id: 'application', cwd: this.#options.cwd };
    }
    if (host.scope !== this.scope || !host.id) {
      throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `a ${this.scope}-scope capability set cannot open for a ${host.scope} port${host.id ? '' : ' without an id'}`, {
        hint: `pass the port of the actual ${this.scope} owner`,
      });
    }
    return host;
  }

  #plugins(): readonly DiscoveredPlugin[] {
    return (this.#discovered ??= this.#options.plugins ?? discoverPlugins({ cwd: this.#options.cwd }));
  }

  /** The host's kernel, or a private one holding only the plugins that provide the selection. */
  async #kernel(): Promise<{ kernel: Kernel; owned: boolean }> {
    if (this.#options.kernel) return { kernel: this.#options.kernel, owned: false };
    const wanted = new Set(this.#selection);
    const plugins = this.#plugins().filter((plugin) => plugin.provides.capabilities.some((name) => wanted.has(name)));
    const kernel = await createKernel({ plugins, config: this.#options.config ?? {}, cwd: this.#options.cwd });
    await kernel.open();
    return { kernel, owned: true };
  }

  #provider(providers: Map<string, CapabilityProvider>, name: string): CapabilityProvider {
    const provider = providers.get(name);
    if (!provider) {
      throw new XdogError(ErrorCodes.PLUGIN_INVALID, `the plugin that declares capability "${name}" binds no provider for it`, {
        hint: 'bind a CapabilityProvider with that name to CapabilityContribution in the plugin module',
      });
    }
    if (provider.scopes && !provider.scopes.includes(this.scope)) {
      throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `capability "${name}" cannot be opened in ${this.scope} scope`, {
        hint: `open it in one of: ${provider.scopes.join(', ')}`,
      });
    }
    return provider;
  }

  #packagedSkills(kernel: Kernel, capability: string): SkillRepo {
    const entry = kernel.plugins().find(({ plugin }) => plugin.provides?.capabilities?.includes(capability));
    return entry?.discovered ? SkillRepo.fromPackaged([entry.discovered]) : SkillRepo.empty();
  }
}

/** A binding's default session skills must be among its own skills (they are read when an agent is created). */
function assertSessionSkills(name: string, binding: CapabilityBinding): void {
  for (const slug of binding.sessionSkills ?? []) {
    if (!binding.skills?.has(slug)) {
      throw new XdogError(ErrorCodes.PLUGIN_INVALID, `capability "${name}" names session skill "${slug}" but contributes no skill of that name`, {
        hint: 'list only slugs of the binding\'s own skills in sessionSkills; the capabilities opened so far were closed',
      });
    }
  }
}
