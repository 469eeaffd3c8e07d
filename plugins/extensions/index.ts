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
import { DynamicModelProvidersToken } from '../../core/model/registry.js';
import type { Kernel } from '../../core/kernel.js';
import type { XdogConfig } from '../../core/config.js';
import type { Agent } from '../../core/agent/agent.js';
import { bridgeAgent } from './bridge.js';
import { ExtensionHost } from './host.js';
import { extensionProviders, extensionTools } from './provider.js';
import { extensionsService } from './gateway-service.js';
import { GatewayServiceContribution } from '../claw-gateway/index.js';
import type { AgentTool } from '../../core/agent/tool-types.js';

export { ExtensionHost, commandAlias, providerAlias, toolAlias, extensionSlug, type ExtensionInfo, type ExtensionState, type ExtensionUi, type ExtensionEntrySink, type ExtensionInspector } from './host.js';
export { BRIDGE_TAP } from './bridge.js';
export { ENTRY_TYPE_PREFIX, sessionEntries } from './gateway-service.js';
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

/** What one agent reads of the current run, for the inspection API; 'unavailable' where it has nothing. */
function inspectorOf(agent: Agent) {
  return {
    inspect(what: string): unknown {
      if (agent.isClosed) return 'unavailable';
      if (what === 'model') {
        const info = agent.resolveModel();
        return info ? { id: info.id, provider: info.provider, ...(info.contextWindow !== undefined && { contextWindow: info.contextWindow }) } : 'unavailable';
      }
      if (what === 'activeTools') return agent.activeTools.map((tool) => tool.name);
      if (what === 'contextUsage') {
        const last = [...agent.messages].reverse().find((message) => message.role === 'assistant' && message.stopReason !== 'error');
        if (!last || last.role !== 'assistant') return 'unavailable';
        const tokens = last.usage.input + last.usage.output + last.usage.cacheRead + last.usage.cacheWrite;
        const window = agent.resolveModel()?.contextWindow;
        return { source: 'last-response', tokens, ...(window && { contextWindow: window, percent: (tokens / window) * 100 }) };
      }
      return 'unavailable'; // sessionName: only a session store knows it
    },
  };
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
        return new ExtensionHost({
          ids: config.extensions ?? [],
          settings: config.extension_settings ?? {},
          cwd,
          locate: (id) => findExtension(id, { cwd }),
          ...(config.extension_timeout_ms !== undefined && { callbackTimeoutMs: config.extension_timeout_ms }),
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
      host.inspector = inspectorOf(agent);
      const disposers = bridgeAgent(host, agent);
      agent.onClose(() => disposers.forEach((dispose) => dispose()));
    });
  },
  async close({ kernel }) {
    await (hosts.get(kernel) ?? (kernel.isBound(ExtensionHostToken) ? kernel.get(ExtensionHostToken) : undefined))?.close();
  },
});
