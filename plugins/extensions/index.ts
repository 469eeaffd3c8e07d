/**
 * The extensions plugin: trusted extension code in owned worker processes,
 * bridged into the same agent hooks and contributions in-process plugins use
 * (docs/extensions.md). Selecting it starts nothing: extensions listed under
 * `extensions:` in the config activate on an agent's first input, on
 * `activateAll()`, or when one of their models is asked for.
 */
import { ContainerModule } from 'inversify';
import { definePlugin } from '../../core/plugin.js';
import { findExtension } from '../../core/discovery.js';
import { terminalSafe } from '../../core/terminal-text.js';
import { Config, WorkingDirectory, token } from '../../core/tokens.js';
import { TelemetryHolderToken, type TelemetryHolder } from '../../core/telemetry.js';
import { DynamicModelProvidersToken } from '../../core/model/registry.js';
import type { Kernel } from '../../core/kernel.js';
import type { XdogConfig } from '../../core/config.js';
import { bridgeAgent } from './bridge.js';
import { inspectorOf } from './inspector.js';
import { ExtensionHost } from './host.js';
import { extensionProviders, extensionTools } from './provider.js';
import { extensionsService } from './gateway-service.js';
import { resolvePolicy } from '../sandbox/index.js';
import { ClawGroupToken, GatewayServiceContribution } from '../claw-gateway/tokens.js';
import type { AgentTool } from '../../core/agent/tool-types.js';

export { ExtensionHost, RESERVED_PUBLIC_NAMES, commandAlias, providerAlias, toolAlias, extensionSlug, type ExtensionInfo, type ExtensionState, type ExtensionUi, type ExtensionEntrySink, type ExtensionInspector } from './host.js';
export { BRIDGE_TAP } from './bridge.js';
export { changesExtensions, completeExtensionSlash, isExtensionSlash, localControl, publicCommands, renderExtensions, runExtensionSlash, type ExtensionControl, type ResultShelf, type SlashCompletion, type SlashOutput } from './slash.js';
export { isCommandResult, renderCommandResult, type ExtensionCommandResult } from './command-result.js';
export { ARTIFACT_FORMAT, artifactBytes, artifactFromBytes, readArtifact, writeArtifact } from './artifact.js';
export { syncExtensionTools } from './provider.js';
export { ENTRY_TYPE_PREFIX, sessionEntries } from './gateway-service.js';
export { sessionCatalog, type ExtensionSessionCatalog } from './session-catalog.js';
export type * from './api.js';

/** The kernel's extension host (one per kernel, inert until something activates an extension). */
export const ExtensionHostToken = token<ExtensionHost>('ExtensionHost');

/** The host of a kernel that selected this plugin, or undefined. */
export function extensionHostOf(kernel: Kernel): ExtensionHost | undefined {
  return kernel.isBound(ExtensionHostToken) ? kernel.get(ExtensionHostToken) : undefined;
}

/** The tools active extensions registered (`ext_NAME`), each blocked unless listed in `extension_allow_tools`. */
export function extensionToolsOf(kernel: Kernel): AgentTool[] {
  const host = extensionHostOf(kernel);
  return host ? extensionTools(host, kernel.config.extension_allow_tools ?? []) : [];
}

const hosts = new WeakMap<Kernel, ExtensionHost>();

export default definePlugin({
  name: 'extensions',
  provides: {},
  module: new ContainerModule(({ bind }) => {
    bind(ExtensionHostToken)
      .toDynamicValue((context) => {
        const config = context.get<XdogConfig>(Config);
        const cwd = context.get<string>(WorkingDirectory);
        // Filled when the telemetry plugin opens (after this binding resolves): asked per callback.
        const telemetry = context.get<TelemetryHolder>(TelemetryHolderToken, { optional: true });
        return new ExtensionHost({
          telemetry: () => telemetry?.current,
          ids: config.extensions ?? [],
          settings: config.extension_settings ?? {},
          cwd,
          locate: (id) => findExtension(id, { cwd, ...(config.extension_dir === undefined ? {} : { extensionDir: config.extension_dir }) }),
          ...(config.extension_timeout_ms !== undefined && { callbackTimeoutMs: config.extension_timeout_ms }),
          sandboxOf: (id) => resolvePolicy(config.extension_sandbox?.[id] ?? config.sandbox, cwd),
          onNotice: (message) => process.stderr.write(`xdog: notice: ${terminalSafe(message)}\n`),
        });
      })
      .inSingletonScope();
    bind(DynamicModelProvidersToken).toDynamicValue((context) => extensionProviders(context.get<ExtensionHost>(ExtensionHostToken)));
    // In the gateway's process kernel: list/reload/unload per group, and durable entries in the store.
    bind(GatewayServiceContribution).toConstantValue(extensionsService((kernel) => extensionHostOf(kernel as Kernel)));
  }),
  apply(kernel) {
    kernel.hooks.agentCreated.tap('extensions', (agent) => {
      const host = kernel.get(ExtensionHostToken);
      hosts.set(kernel, host);
      // The first agent, or the next once it closed; the gateway points it at each run's session agent.
      if (!host.inspector || host.inspector.closed) host.inspector = inspectorOf(agent);
      const disposers = bridgeAgent(host, agent);
      agent.onClose(() => disposers.forEach((dispose) => dispose()));
    });
  },
  async open({ kernel }) {
    // In a claw group kernel: a configured or saved ext-… model must resolve before the gateway reports ready.
    if (!kernel.isBound(ClawGroupToken)) return;
    const group = kernel.get(ClawGroupToken);
    const models = [kernel.config.claw?.groups?.[group.name]?.model];
    const active = (await group.store.getGroup(group.name)).activeSessionId;
    if (active) models.push((await group.store.getState(active)).model);
    await kernel.get(ExtensionHostToken).activateForModels(models, `group ${group.name}`);
  },
  async close({ kernel }) {
    await (hosts.get(kernel) ?? (kernel.isBound(ExtensionHostToken) ? kernel.get(ExtensionHostToken) : undefined))?.close();
  },
});
