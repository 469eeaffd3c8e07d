/**
 * Contributions by name: which plugin bound each tool, model provider and
 * capability provider, whether it declared that name in `provides`, and the
 * host's per-name replacements and removals. The kernel binds every plugin
 * module through `guardModule`, and `Kernel.getAll` passes contribution
 * tokens through `collectContributions`.
 */
import { ContainerModule, type ContainerModuleLoadOptions } from 'inversify';
import { ErrorCodes, XdogError } from './errors.js';
import type { DiscoveredPlugin } from './discovery.js';
import type { PluginProvides, ToolFactoryContext, XdogPlugin } from './plugin.js';
import type { AgentTool } from './agent/tool-types.js';
import type { ModelProvider } from './model/types.js';
import type { CapabilityProvider } from './capabilities/types.js';
import { CapabilityContribution, ClockToken, ModelProviderContribution, ToolContribution, WorkingDirectory, token, type Token } from './tokens.js';

/** The provide kinds whose contributions are bound values with a name. */
export type ContributionKind = 'tools' | 'providers' | 'capabilities' | 'channels';

interface KindSpec {
  kind: ContributionKind;
  /** For messages: "tool", "channel type". */
  singular: string;
  /** The property that names a value (`name`, or `type` for channel types). */
  key: string;
}

const KIND_OF_TOKEN = new Map<symbol, KindSpec>([
  [ToolContribution, { kind: 'tools', singular: 'tool', key: 'name' }],
  [ModelProviderContribution, { kind: 'providers', singular: 'model provider', key: 'name' }],
  [CapabilityContribution, { kind: 'capabilities', singular: 'capability', key: 'name' }],
]);

/**
 * Makes a plugin-defined token a named contribution kind: bindings to it are
 * claimed against the binding plugin's `provides[kind]`, and two with one name
 * fail naming both plugins. The channels plugin registers its channel-type
 * token this way (core knows the kind, not the contract).
 */
export function registerContributionKind(service: symbol, kind: ContributionKind, singular: string, key: string): void {
  const known = KIND_OF_TOKEN.get(service);
  if (known && (known.kind !== kind || known.key !== key)) throw new XdogError(ErrorCodes.CONFLICT, `the token ${String(service)} is already the contribution kind "${known.kind}"`);
  KIND_OF_TOKEN.set(service, { kind, singular, key });
}

export function contributionKindOf(service: symbol): ContributionKind | undefined {
  return KIND_OF_TOKEN.get(service)?.kind;
}

/** Who bound a contribution value: "plugin "x" (package@1.0.0)". */
const contributors = new WeakMap<object, string>();

/** The plugin that bound a contribution, for messages; undefined for host or unguarded bindings. */
export function contributorOf(value: unknown): string | undefined {
  return (typeof value === 'object' && value !== null) || typeof value === 'function' ? contributors.get(value as object) : undefined;
}

/** The npm package of each plugin description that `guardModule` made (absent for a host's own plugin). */
const packageOfOwner = new Map<string, string>();

/** The npm package whose plugin bound a contribution ("xdog" for a built-in one); undefined when unknown. */
export function contributingPackageOf(value: unknown): string | undefined {
  const owner = contributorOf(value);
  return owner === undefined ? undefined : packageOfOwner.get(owner);
}

export function describePlugin(plugin: XdogPlugin, discovered?: DiscoveredPlugin): string {
  return discovered ? `plugin "${plugin.name}" (${discovered.packageName}@${discovered.version}, ${discovered.dir})` : `plugin "${plugin.name}"`;
}

function nameOf(value: unknown, key = 'name'): string | undefined {
  const name = (value as Record<string, unknown> | null | undefined)?.[key];
  return typeof name === 'string' ? name : undefined;
}

/** Records who bound `value` and fails when that plugin did not declare its name. */
function claim(spec: KindSpec, value: unknown, owner: string, declared: PluginProvides | undefined): unknown {
  const { kind, singular, key } = spec;
  const name = nameOf(value, key);
  if (name === undefined) {
    throw new XdogError(ErrorCodes.PLUGIN_INVALID, `${owner} binds a ${singular} without a name`, { hint: `a ${singular} needs a string "${key}"` });
  }
  if (declared && !(declared[kind] ?? []).includes(name)) {
    throw new XdogError(ErrorCodes.PLUGIN_INVALID, `${owner} binds ${singular} "${name}" but does not declare it in provides.${kind}`, {
      hint: `add "${name}" to provides.${kind} in the plugin's package.json "xdog" field (and in definePlugin), or stop binding it`,
    });
  }
  if ((typeof value === 'object' && value !== null) || typeof value === 'function') contributors.set(value as object, owner);
  return value;
}

function claimMaybeAsync(spec: KindSpec, value: unknown, owner: string, declared: PluginProvides | undefined): unknown {
  if (value instanceof Promise) return value.then((resolved) => claim(spec, resolved, owner, declared));
  return claim(spec, value, owner, declared);
}

type Fluent = Record<string, (...args: unknown[]) => unknown>;

/** Wraps a `bind(token)` syntax so every value it yields is claimed for its plugin. */
function guardSyntax(syntax: Fluent, spec: KindSpec, owner: string, declared: PluginProvides | undefined): Fluent {
  return new Proxy(syntax, {
    get(target, property, receiver) {
      const original = Reflect.get(target, property, receiver) as unknown;
      if (typeof original !== 'function') return original;
      if (property === 'toConstantValue') return (value: unknown) => original.call(target, claim(spec, value, owner, declared));
      if (property === 'toDynamicValue') {
        return (factory: (context: unknown) => unknown) => original.call(target, (context: unknown) => claimMaybeAsync(spec, factory(context), owner, declared));
      }
      if (typeof property === 'string' && property.startsWith('to')) {
        return (...args: unknown[]) => {
          const next = original.apply(target, args) as Fluent;
          next.onActivation?.((_context: unknown, value: unknown) => claimMaybeAsync(spec, value, owner, declared));
          return next;
        };
      }
      return original.bind(target);
    },
  });
}

function toolFactoryContext(context: { get<T>(service: Token<T>): T }): ToolFactoryContext {
  return { cwd: context.get(WorkingDirectory), clock: context.get(ClockToken), get: (service) => context.get(service) };
}

/**
 * A module that binds the plugin's `tools` shorthand and its own module, with
 * every contribution claimed for the plugin (checked against its `provides`:
 * the package.json one for a discovered plugin, else the definition's, when given).
 */
export function guardModule(plugin: XdogPlugin, discovered?: DiscoveredPlugin): ContainerModule {
  const owner = describePlugin(plugin, discovered);
  if (discovered) packageOfOwner.set(owner, discovered.packageName);
  const declared = discovered?.provides ?? plugin.provides;
  return new ContainerModule(async (options: ContainerModuleLoadOptions) => {
    const bind = (<T>(service: Token<T>) => {
      const syntax = options.bind(service);
      const spec = KIND_OF_TOKEN.get(service);
      return spec ? guardSyntax(syntax as unknown as Fluent, spec, owner, declared) : syntax;
    }) as ContainerModuleLoadOptions['bind'];
    for (const tool of plugin.tools ?? []) {
      bind(ToolContribution).toDynamicValue((context) => (typeof tool === 'function' ? tool(toolFactoryContext(context)) : tool));
    }
    await plugin.module?.load({ ...options, bind });
  });
}

/** A host's per-name change to one contribution: a replacement, or null to remove it. */
export interface ContributionOverride {
  kind: ContributionKind;
  name: string;
  replacement: AgentTool | ((context: ToolFactoryContext) => AgentTool) | ModelProvider | CapabilityProvider | null;
}

/** Multi-binding: the host's per-name overrides (bound by `overrideContributions`). */
export const ContributionOverrideToken = token<ContributionOverride>('ContributionOverride');

export interface ContributionOverrides {
  /** Tool name → the tool (or a factory) that replaces it, or null to remove it. */
  tools?: Record<string, AgentTool | ((context: ToolFactoryContext) => AgentTool) | null>;
  /** Provider name → the provider that replaces it, or null to remove it. */
  providers?: Record<string, ModelProvider | null>;
  /** Capability name → the capability provider that replaces it, or null to remove it. */
  capabilities?: Record<string, CapabilityProvider | null>;
}

/**
 * A host module that replaces or removes single contributions by name and
 * keeps the others: `overrides: [overrideContributions({ tools: { read: myRead, bash: null } })]`.
 * Naming something no plugin contributes fails when the contributions are collected.
 */
export function overrideContributions(overrides: ContributionOverrides): ContainerModule {
  return new ContainerModule(({ bind }) => {
    for (const kind of ['tools', 'providers', 'capabilities'] as const) {
      for (const [name, replacement] of Object.entries(overrides[kind] ?? {})) {
        bind(ContributionOverrideToken).toConstantValue({ kind, name, replacement });
      }
    }
  });
}

/** Tool factories run once per override (so once per kernel), like a singleton binding. */
const madeReplacements = new WeakMap<ContributionOverride, unknown>();

function replacementOf(override: ContributionOverride, get: <S>(service: Token<S>) => S): unknown {
  if (typeof override.replacement !== 'function' || override.kind !== 'tools') return override.replacement;
  if (!madeReplacements.has(override)) madeReplacements.set(override, (override.replacement as (context: ToolFactoryContext) => AgentTool)(toolFactoryContext({ get })));
  return madeReplacements.get(override);
}

/**
 * The values bound to `service` after the host's overrides, in binding order,
 * when it is a contribution kind (else as bound). Two contributions with one
 * name fail naming both plugins.
 */
export function collectContributions<T>(service: symbol, values: readonly T[], overrides: readonly ContributionOverride[], get: <S>(service: Token<S>) => S): T[] {
  const spec = KIND_OF_TOKEN.get(service);
  if (!spec) return [...values];
  const { kind, singular, key } = spec;
  const mine = overrides.filter((override) => override.kind === kind);
  const byName = new Map(mine.map((override) => [override.name, override]));
  if (byName.size !== mine.length) {
    const twice = mine.find((override, index) => mine.findIndex((other) => other.name === override.name) !== index)!;
    throw new XdogError(ErrorCodes.CONFLICT, `the host overrides ${singular} "${twice.name}" twice`, { hint: 'override each name once' });
  }
  const seen = new Map<string, unknown>();
  const result: T[] = [];
  for (const value of values) {
    const name = nameOf(value, key) ?? '';
    const previous = seen.get(name);
    if (seen.has(name)) {
      const unattributed = 'a binding made outside a plugin module (a host override or an apply)';
      const first = contributorOf(previous) ?? unattributed;
      const second = contributorOf(value) ?? unattributed;
      throw new XdogError(ErrorCodes.PLUGIN_CONFLICT, `${singular} "${name}" is bound by both ${first} and ${second}`, {
        hint: `deselect or uninstall one of them, or have the host replace one with overrideContributions({ ${kind}: { "${name}": ... } })`,
      });
    }
    seen.set(name, value);
    const override = byName.get(name);
    if (!override) {
      result.push(value);
      continue;
    }
    if (override.replacement === null) continue;
    const replacement = replacementOf(override, get);
    if (nameOf(replacement, key) !== name) {
      throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `the host's replacement for ${singular} "${name}" is named ${JSON.stringify(nameOf(replacement, key))}`, {
        hint: 'a replacement keeps the name it replaces; to add a new one, bind it instead',
      });
    }
    result.push(replacement as T);
  }
  for (const name of byName.keys()) {
    if (!seen.has(name)) {
      throw new XdogError(ErrorCodes.NOT_FOUND, `the host overrides ${singular} "${name}", but no loaded plugin contributes it`, {
        hint: `contributed ${kind}: ${[...seen.keys()].sort().join(', ') || 'none'}`,
      });
    }
  }
  return result;
}
