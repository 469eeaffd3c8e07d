/**
 * Binding a registry to an Agent: its proxies become the agent's remote
 * tools (never ToolRepo entries), and a `beforeToolCall` tap enforces the
 * host's policy: arguments must match the advertised schema, and a server
 * without `allow_tools: true` is blocked with a reason the model can read.
 */
import {
  Agent,
  tapHook,
  type AgentConfig,
  type AgentHooks,
  type AgentOptions,
  type Disposer,
  type ModelStreamFn,
  type RemoteToolSource,
} from '../../core/index.js';
import type { McpProxyTool, McpRegistry } from './registry.js';

/** What binding needs from an Agent. */
export interface McpBindableAgent {
  readonly hooks: AgentHooks;
  setRemoteTools(source: RemoteToolSource | undefined): void;
}

/**
 * Gives `agent` the registry's tools and policy; returns a disposer that
 * removes both. The registry stays host-owned: closing the agent does not close it.
 */
export function bindMcpRegistry(agent: McpBindableAgent, registry: McpRegistry): Disposer {
  // Attach first: a local/remote name conflict fails here and leaves nothing behind.
  agent.setRemoteTools(registry.toolSource());
  const untap = tapHook(agent.hooks.beforeToolCall, 'mcp', (context: { tool: unknown; args: unknown }) => {
    const tool = context.tool as Partial<McpProxyTool>;
    if (!tool.mcp || !tool.validateArguments) return undefined;
    const blocked = registry.blockReason(tool as McpProxyTool);
    if (blocked) return { block: true, reason: blocked };
    try {
      tool.validateArguments(context.args);
    } catch (error) {
      return { block: true, reason: (error as Error).message };
    }
    return undefined;
  });
  let bound = true;
  return () => {
    if (!bound) return;
    bound = false;
    untap();
    agent.setRemoteTools(undefined);
  };
}

/** The seed's name for binding: `agent.set_mcp_registry(registry)` becomes `setMcpRegistry(agent, registry)`. */
export const setMcpRegistry = bindMcpRegistry;

/**
 * The seed's `Agent(stream_fn, config, mcp_registry=registry)`: a new Agent
 * bound to `mcpRegistry`. The registry stays host-owned; close it after the agent.
 */
export function createMcpAgent(streamFn: ModelStreamFn, config: AgentConfig, options: AgentOptions & { mcpRegistry: McpRegistry }): Agent {
  const { mcpRegistry, ...agentOptions } = options;
  const agent = new Agent(streamFn, config, agentOptions);
  try {
    bindMcpRegistry(agent, mcpRegistry);
  } catch (error) {
    void agent.close();
    throw error;
  }
  return agent;
}
