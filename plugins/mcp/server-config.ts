/**
 * Programmatic server configs go through the same zod schema as the config
 * file (core/config.ts), so a host and a YAML file fail the same way.
 */
import {
  ErrorCodes,
  LIMITS,
  McpServerConfigSchema,
  McpServerIdSchema,
  XdogError,
  type McpServerConfig,
} from '../../core/index.js';

export type McpStdioConfig = Extract<McpServerConfig, { transport: 'stdio' }>;
export type McpHttpConfig = Extract<McpServerConfig, { transport: 'http' }>;
export type { McpServerConfig };

/** Validates a server id and its config; errors name the id and the key. */
export function parseServerConfig(id: string, config: unknown): McpServerConfig {
  const idResult = McpServerIdSchema.safeParse(id);
  if (!idResult.success) {
    throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `MCP server id ${JSON.stringify(id)} ${idResult.error.issues[0]!.message}`, {
      hint: 'choose a short ASCII id such as "files"',
    });
  }
  const result = McpServerConfigSchema.safeParse(config);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${[id, ...issue.path].join('.')}: ${issue.message}`);
    throw new XdogError(ErrorCodes.CONFIG_INVALID, `invalid MCP server config: ${problems.join('; ')}`, {
      hint: 'docs/config.md lists the keys of an mcp_servers entry',
      details: { problems },
    });
  }
  return result.data;
}

/** The request timeout of a server, in milliseconds. */
export function timeoutMs(config: McpServerConfig): number {
  return (config.timeout ?? LIMITS.mcpDefaultTimeoutSeconds) * 1000;
}
