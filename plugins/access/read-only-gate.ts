/**
 * The read-only gate: a `beforeToolCall` tap, at the policy stage (after any
 * tap that rewrites arguments), that lets through only the built-in local
 * read tools (read, ls, grep, find, current_time) and MCP tools the user
 * listed in their server's `read_only_tools`. Everything else (shell, writes,
 * extension and plugin tools, unknown tools, MCP tools on a server's word)
 * is blocked while the scope is read-only. A scope that cannot be read
 * blocks every call.
 */
import { POLICY_GATE_STAGE, describeError, tapHook, type AgentHooks, type AgentTool, type BeforeToolCallContext, type BeforeToolCallResult, type Disposer } from '../../core/index.js';
import { isLocalReadOnlyTool } from '../tools/index.js';
import type { AccessScope } from './scope.js';

/** What the gate asks of the MCP registry (identity of its own proxies and the user's read_only_tools). */
export interface ReadOnlyMcpPolicy {
  allowedWhenReadOnly(tool: AgentTool): boolean;
}

export const READ_ONLY_TOOLS = ['read', 'ls', 'grep', 'find', 'current_time'] as const;

/** Why `tool` may not run under a read-only scope, or undefined when it may. */
export function readOnlyBlockReason(tool: AgentTool, remote: boolean, mcp: ReadOnlyMcpPolicy | undefined): string | undefined {
  if (!remote && isLocalReadOnlyTool(tool)) return undefined;
  if (remote && mcp?.allowedWhenReadOnly(tool)) return undefined;
  const allowed = `${READ_ONLY_TOOLS.join(', ')} and MCP tools listed in read_only_tools`;
  return `the read-only scope is on: "${tool.name}" is not allowed (only ${allowed}); only the user can turn it off`;
}

/** Taps the gate into one agent's hooks; returns a disposer. */
export function tapReadOnlyGate(hooks: AgentHooks, scope: AccessScope, mcp: () => ReadOnlyMcpPolicy | undefined): Disposer {
  return tapHook(
    hooks.beforeToolCall,
    'access:read-only',
    async (context: BeforeToolCallContext): Promise<BeforeToolCallResult | undefined> => {
      let mode;
      try {
        mode = await scope.mode();
      } catch (error) {
        return { block: true, reason: `the access scope could not be read, so every tool call is denied: ${describeError(error)}` };
      }
      if (mode !== 'read-only') return undefined;
      const reason = readOnlyBlockReason(context.tool, context.remote, mcp());
      return reason ? { block: true, reason } : undefined;
    },
    { stage: POLICY_GATE_STAGE },
  );
}
