/**
 * The `mcp` plugin: an MCP client. It binds one host-owned McpRegistry with
 * every `mcp_servers` entry of the config registered (inert: nothing starts
 * until someone calls `connect`), binds it to each kernel-created agent, and
 * closes it (terminating any server it started) when the kernel closes.
 */
import { ContainerModule, Config, KernelToken, WorkingDirectory, definePlugin, telemetryOf, type Kernel, type PluginContext, type XdogConfig } from '../../core/index.js';
import { bindMcpRegistry, type McpBindableAgent } from './agent-binding.js';
import { credentialStoreOf } from './credential-store.js';
import { McpRegistry } from './registry.js';
import { McpRegistryToken } from './session.js';

export { bindMcpRegistry, createMcpAgent, setMcpRegistry, type McpBindableAgent } from './agent-binding.js';
export { McpRegistry } from './registry.js';
export type {
  McpCompletionRequest,
  McpHandlersOption,
  McpProxyTool,
  McpRegistryOptions,
  McpServerNotice,
  McpServerState,
  McpServerStatus,
  McpToolInfo,
} from './registry.js';
export type { McpBlock, McpBlockType } from './content.js';
export { checkElicitationAnswer, parseSampling } from './client-requests.js';
export { describeElicitationField, elicitationFieldRules, elicitationValueProblem, parseElicitationLine, type McpElicitationFormat } from './elicitation-fields.js';
export type { McpClientHandlers, McpElicitation, McpElicitationAnswer, McpElicitationField, McpElicitationValue, McpSamplingAnswer, McpSamplingRequest } from './client-requests.js';
export { draftText } from './documents.js';
export type { McpCatalogKind, McpCompletion, McpDocument, McpPromptEntry, McpResourceEntry, McpTemplateEntry } from './documents.js';
export type { McpToolDetails } from './tool-result.js';
export { toolAlias } from './aliases.js';
export { compileSchema, schemaDialect, type SchemaDialect } from './schema.js';
export { parseServerConfig, type McpServerConfig } from './server-config.js';
export { connectMcpServer, mcpRegistryOf, McpRegistryToken, parseJsonObject, withConfiguredServer } from './session.js';
export { formatDocument, formatToolResult } from './text.js';
export { FileCredentialStore, SecretServiceCredentialStore, credentialStoreOf, type McpCredentialRecord, type McpCredentialStore } from './credential-store.js';
/** OAuth (login, explicit refresh): loaded on demand, it brings the SDK's auth client. */
export { authStatusOf, oauthServerOf, type McpAuthStatus } from './oauth-server.js';
export const loadMcpOAuth = () => import('./oauth.js');

/** Registries this plugin built, by kernel: closing one kernel closes only its own. */
const owned = new Map<Kernel, McpRegistry>();

export default definePlugin({
  name: 'mcp',
  module: new ContainerModule(({ bind }) => {
    bind(McpRegistryToken)
      .toDynamicValue((context) => {
        const config = context.get<XdogConfig>(Config);
        const kernel = context.get<Kernel>(KernelToken);
        const registry = McpRegistry.fromConfig(config.mcp_servers, { cwd: context.get<string>(WorkingDirectory), credentials: credentialStoreOf(config), sandbox: config.sandbox, telemetry: () => telemetryOf(kernel) });
        owned.set(kernel, registry);
        return registry;
      })
      .inSingletonScope();
  }),
  apply(kernel: Kernel) {
    const unbinders = new WeakMap<object, () => void>();
    kernel.hooks.agentCreated.tap('mcp', (agent) => {
      const bindable = agent as unknown as Partial<McpBindableAgent>;
      if (typeof bindable.setRemoteTools !== 'function') return;
      unbinders.set(agent, bindMcpRegistry(bindable as McpBindableAgent, kernel.get(McpRegistryToken)));
    });
    kernel.hooks.agentClosed.tap('mcp', (agent) => {
      try {
        unbinders.get(agent)?.();
      } catch {
        // A closed agent may refuse setRemoteTools; it holds no MCP resources anyway.
      }
    });
  },
  async close({ kernel }: PluginContext) {
    const registry = owned.get(kernel);
    owned.delete(kernel);
    await registry?.close();
  },
});
