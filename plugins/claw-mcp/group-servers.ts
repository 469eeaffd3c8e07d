/**
 * One group's MCP servers: the ids its `mcp_servers` lists, connected in the
 * group kernel's registry (so stdio servers start in the group's workspace
 * and every session's agent of the group sees the same connections). Only an
 * explicit connect starts one; they end when the group closes or moves.
 */
import { ErrorCodes, XdogError, type XdogConfig } from '../../core/index.js';
import type { GroupRuntime } from '../claw-gateway/tokens.js';
import { McpRegistryToken, type McpRegistry, type McpServerStatus } from '../mcp/index.js';

/** What `mcp.list` shows of one server (never env or header values). */
export type GroupMcpServer = McpServerStatus;

/** The ids a group may connect (`claw.groups.G.mcp_servers`), in config order. */
export function groupServerIds(config: XdogConfig, group: string): string[] {
  return [...(config.claw?.groups?.[group]?.mcp_servers ?? [])];
}

/** The group kernel's registry. */
export function groupRegistry(runtime: GroupRuntime): McpRegistry {
  return runtime.kernel.get(McpRegistryToken);
}

/** The registry of `runtime` after checking that the group lists `server`. */
export function serverOfGroup(config: XdogConfig, runtime: GroupRuntime, server: string): McpRegistry {
  const ids = groupServerIds(config, runtime.name);
  if (!ids.includes(server)) {
    throw new XdogError(ErrorCodes.NOT_FOUND, `group ${runtime.name} has no MCP server "${server}"`, {
      hint: ids.length ? `its servers: ${ids.join(', ')}` : `list it under claw.groups.${runtime.name}.mcp_servers (and declare it under mcp_servers), then restart the gateway`,
    });
  }
  return groupRegistry(runtime);
}

/** Status of each server the group lists. */
export function groupServers(config: XdogConfig, runtime: GroupRuntime): GroupMcpServer[] {
  const registry = groupRegistry(runtime);
  return groupServerIds(config, runtime.name).map((id) => registry.status(id)[0]!);
}

/** Ends every connection of the group (process groups killed and reaped); never throws. */
export async function disconnectGroup(config: XdogConfig, runtime: GroupRuntime, log: (line: string) => void): Promise<void> {
  const registry = groupRegistry(runtime);
  const ids = groupServerIds(config, runtime.name).filter((id) => registry.status(id)[0]?.state === 'connected' || registry.status(id)[0]?.state === 'connecting');
  const results = await Promise.allSettled(ids.map((id) => registry.disconnect(id)));
  results.forEach((result, index) => {
    if (result.status === 'rejected') log(`group ${runtime.name}: MCP server ${ids[index]} did not disconnect cleanly: ${(result.reason as Error).message}`);
  });
}
