/**
 * One-shot use of a configured server, as the CLI does it: build a registry
 * from the config's `mcp_servers`, connect the one server asked for, run one
 * action, and always disconnect (terminating a stdio server) afterwards.
 */
import { ErrorCodes, XdogError, token, type Kernel, type XdogConfig } from '../../core/index.js';
import { credentialStoreOf } from './credential-store.js';
import { McpRegistry } from './registry.js';

/** The kernel's McpRegistry (the mcp plugin binds it, built from the config's `mcp_servers`). */
export const McpRegistryToken = token<McpRegistry>('McpRegistry');

/** Runs `action` with `server` connected; the registry is closed whatever happens. */
export async function withConfiguredServer<T>(
  config: XdogConfig,
  server: string,
  cwd: string,
  action: (registry: McpRegistry) => Promise<T>,
): Promise<T> {
  const registry = McpRegistry.fromConfig(config.mcp_servers, { cwd, credentials: credentialStoreOf(config) });
  try {
    if (!registry.servers().includes(server)) {
      throw new XdogError(ErrorCodes.NOT_FOUND, `no MCP server "${server}" in the config file`, {
        hint: `configured: ${registry.servers().join(', ') || 'none'}; add it under mcp_servers (see docs/config.md)`,
      });
    }
    await registry.connect(server);
    return await action(registry);
  } finally {
    await registry.close();
  }
}

/** Parses a JSON object given on the command line. */
export function parseJsonObject(text: string | undefined, what: string): Record<string, unknown> {
  if (text === undefined || text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `${what} is not valid JSON: ${(error as Error).message}`, {
      hint: `quote it for the shell, e.g. '{"message":"hi"}'`,
    });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `${what} must be a JSON object`, { hint: `e.g. '{"message":"hi"}'` });
  }
  return value as Record<string, unknown>;
}

/** The kernel's registry, when the mcp plugin is loaded. */
export function mcpRegistryOf(kernel: Kernel): McpRegistry | undefined {
  return kernel.isBound(McpRegistryToken) ? kernel.get(McpRegistryToken) : undefined;
}

/**
 * Connects one configured server on a kernel's registry (the mcp plugin's),
 * so kernel-created agents get its tools. The kernel's close disconnects it.
 */
export async function connectMcpServer(kernel: Kernel, server: string): Promise<void> {
  if (!kernel.isBound(McpRegistryToken)) {
    throw new XdogError(ErrorCodes.NOT_FOUND, 'the mcp plugin is not loaded', { hint: 'xdog plugins list shows what is installed' });
  }
  await kernel.get(McpRegistryToken).connect(server);
}
