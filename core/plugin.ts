/**
 * The plugin contract. A plugin is a plain object made by `definePlugin()`:
 * a DI module that only binds, an `apply` that only taps hooks, and optional
 * `open`/`close` that start and release what it owns. Nothing acts before `open`.
 */
import type { ContainerModule } from 'inversify';
import { ErrorCodes, XdogError } from './errors.js';
import type { Kernel } from './kernel.js';

/** Names a plugin contributes, by kind. Two plugins may not provide the same name of one kind. */
export interface PluginProvides {
  tools?: string[];
  skills?: string[];
  providers?: string[];
  capabilities?: string[];
  commands?: string[];
}

export const PROVIDE_KINDS = ['tools', 'skills', 'providers', 'capabilities', 'commands'] as const;
export type ProvideKind = (typeof PROVIDE_KINDS)[number];

/** What `open` receives. */
export interface PluginContext {
  kernel: Kernel;
  /** The plugin's own folder (for packaged files such as skills). */
  dir?: string;
}

export interface XdogPlugin {
  /** Unique among loaded plugins; names every tap the plugin makes. */
  name: string;
  provides?: PluginProvides;
  /** Binds services and contributions. Runs at load; must start nothing. */
  module?: ContainerModule;
  /** Taps kernel hooks. Runs at load, after every module is bound; must start nothing. */
  apply?(kernel: Kernel): void;
  /** Starts owned resources. Runs only when the kernel is opened. */
  open?(context: PluginContext): Promise<void> | void;
  /**
   * Releases them. Runs in reverse open order, also after a failed open. The
   * context names the closing kernel: a plugin object is shared by every
   * kernel in the process, so per-kernel state is keyed by `context.kernel`.
   */
  close?(context: PluginContext): Promise<void> | void;
}

const NAME_PATTERN = /^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/;

/** Checks and freezes a plugin definition. */
export function definePlugin<P extends XdogPlugin>(plugin: P): Readonly<P> {
  if (typeof plugin?.name !== 'string' || !NAME_PATTERN.test(plugin.name)) {
    throw new XdogError(ErrorCodes.PLUGIN_INVALID, `invalid plugin name ${JSON.stringify(plugin?.name)}`, {
      hint: 'use a lower-case npm-style name such as "xdog-plugin-foo"',
    });
  }
  for (const hook of ['apply', 'open', 'close'] as const) {
    if (plugin[hook] !== undefined && typeof plugin[hook] !== 'function') {
      throw new XdogError(ErrorCodes.PLUGIN_INVALID, `plugin "${plugin.name}": ${hook} must be a function`);
    }
  }
  return Object.freeze({ ...plugin });
}

/** True when a value looks like a plugin made by `definePlugin`. */
export function isXdogPlugin(value: unknown): value is XdogPlugin {
  return typeof value === 'object' && value !== null && typeof (value as XdogPlugin).name === 'string';
}
