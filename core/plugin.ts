/**
 * The plugin contract. A plugin is a plain object made by `definePlugin()`:
 * a DI module that only binds, an `apply` that only taps hooks, and optional
 * `open`/`close` that start and release what it owns. Nothing acts before `open`.
 */
import type { ContainerModule } from 'inversify';
import type { AgentHooks } from '../hooks/agent.js';
import type { AgentTool } from './agent/tool-types.js';
import { ErrorCodes, XdogError } from './errors.js';
import type { Kernel } from './kernel.js';
import type { Clock, Token } from './tokens.js';

/** Names a plugin contributes, by kind. Two plugins may not provide the same name of one kind. */
export interface PluginProvides {
  tools?: string[];
  skills?: string[];
  providers?: string[];
  capabilities?: string[];
  commands?: string[];
  /** Channel types (`claw.channels.ID.type`) the plugin binds. */
  channels?: string[];
}

export const PROVIDE_KINDS = ['tools', 'skills', 'providers', 'capabilities', 'commands', 'channels'] as const;
export type ProvideKind = (typeof PROVIDE_KINDS)[number];

/** What `open` receives. */
export interface PluginContext {
  kernel: Kernel;
  /** The plugin's own folder (for packaged files such as skills). */
  dir?: string;
}

/** What a tool factory in `tools: [...]` receives. */
export interface ToolFactoryContext {
  /** The kernel's working directory (token `WorkingDirectory`). */
  cwd: string;
  /** The kernel's clock (token `ClockToken`); tests rebind it to a fake. */
  clock: Clock;
  /** Any other service bound in the kernel (another plugin's token, the config, ...). */
  get<T>(token: Token<T>): T;
}

/** A tool, or a function that makes one per kernel. */
export type PluginTool = AgentTool | ((context: ToolFactoryContext) => AgentTool);

type TapOf<K extends keyof AgentHooks> = AgentHooks[K] extends { promise(...args: infer A): Promise<infer R> }
  ? (...args: A) => R | undefined | void | Promise<R | undefined | void>
  : never;

/** Agent hook taps, made on every agent the kernel creates and removed when it closes. */
export type PluginHooks = { [K in AgentHookName]?: TapOf<K> };

export const AGENT_HOOK_NAMES = ['beforeToolCall', 'afterToolCall', 'inputTransform', 'context', 'beforeCompact', 'compact'] as const;
export type AgentHookName = (typeof AGENT_HOOK_NAMES)[number];

export interface XdogPlugin {
  /** Unique among loaded plugins; names every tap the plugin makes. */
  name: string;
  /** What the plugin binds; checked when its contributions are resolved (an undeclared name is PLUGIN_INVALID). */
  provides?: PluginProvides;
  /** Shorthand: tools bound to `ToolContribution`, each an AgentTool or a factory of one. */
  tools?: readonly PluginTool[];
  /** Shorthand: agent hook taps, named after the plugin, on every agent the kernel creates. */
  hooks?: PluginHooks;
  /**
   * Shorthand: the folder of the plugin's packaged skills, relative to its package
   * (`./skills`). At load the kernel checks it holds exactly the skills in `provides.skills`.
   */
  skills?: string;
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
  const invalid = (problem: string, hint?: string) => new XdogError(ErrorCodes.PLUGIN_INVALID, `plugin "${plugin.name}": ${problem}`, { hint });
  for (const hook of ['apply', 'open', 'close'] as const) {
    if (plugin[hook] !== undefined && typeof plugin[hook] !== 'function') throw invalid(`${hook} must be a function`);
  }
  if (plugin.tools !== undefined) {
    if (!Array.isArray(plugin.tools)) throw invalid('tools must be an array of tools or tool factories');
    plugin.tools.forEach((tool, index) => {
      const isTool = typeof tool === 'object' && tool !== null && typeof tool.name === 'string' && typeof tool.execute === 'function';
      if (!isTool && typeof tool !== 'function') throw invalid(`tools[${index}] is neither a tool ({name, execute, ...}) nor a function that returns one`);
    });
  }
  if (plugin.hooks !== undefined) {
    if (typeof plugin.hooks !== 'object' || plugin.hooks === null) throw invalid('hooks must be an object of hook functions');
    for (const [hook, fn] of Object.entries(plugin.hooks)) {
      if (!(AGENT_HOOK_NAMES as readonly string[]).includes(hook)) throw invalid(`hooks.${hook} is not an agent hook`, `the agent hooks are ${AGENT_HOOK_NAMES.join(', ')}`);
      if (typeof fn !== 'function') throw invalid(`hooks.${hook} must be a function`);
    }
  }
  if (plugin.skills !== undefined && (typeof plugin.skills !== 'string' || plugin.skills.trim() === '')) {
    throw invalid('skills must be the folder of its packaged skills, relative to the package (e.g. "./skills")');
  }
  return Object.freeze({ ...plugin, ...(plugin.tools && { tools: Object.freeze([...plugin.tools]) }), ...(plugin.hooks && { hooks: Object.freeze({ ...plugin.hooks }) }) });
}

/** True when a value looks like a plugin made by `definePlugin`. */
export function isXdogPlugin(value: unknown): value is XdogPlugin {
  return typeof value === 'object' && value !== null && typeof (value as XdogPlugin).name === 'string';
}
