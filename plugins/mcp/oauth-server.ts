/**
 * What the `xdog mcp login|logout|auth-status` commands share: the configured
 * OAuth server and the credential store the config names, with errors that say
 * what to add.
 */
import { ErrorCodes, XdogError, type XdogConfig } from '../../core/index.js';
import { credentialStoreOf, type McpCredentialRecord, type McpCredentialStore } from './credential-store.js';
import type { McpHttpConfig } from './server-config.js';

/** The HTTP server `id` with an oauth section, and the store its logins go to. */
export function oauthServerOf(config: XdogConfig, id: string): { server: McpHttpConfig; store: McpCredentialStore } {
  const server = config.mcp_servers?.[id];
  if (!server) throw new XdogError(ErrorCodes.NOT_FOUND, `no MCP server "${id}" in the config file`, { hint: `configured: ${Object.keys(config.mcp_servers ?? {}).join(', ') || 'none'}` });
  if (server.transport !== 'http' || !server.oauth) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `MCP server "${id}" does not use OAuth`, { hint: `only an http server with an oauth section logs in (docs/mcp.md "OAuth")` });
  const store = credentialStoreOf(config);
  if (!store) throw new XdogError(ErrorCodes.CONFIG_INVALID, 'no MCP credential store is configured, so a login could not be kept', { hint: 'set mcp_credential_backend: file (or secret-service) in the config file' });
  return { server, store };
}

/** What `auth-status` shows: never a token. */
export interface McpAuthStatus {
  server: string;
  backend: string;
  location: string;
  loggedIn: boolean;
  issuer?: string;
  clientId?: string;
  scope?: string;
  refreshable?: boolean;
  /** Epoch ms. */
  obtainedAt?: number;
  expiresAt?: number;
  expired?: boolean;
}

export function authStatusOf(id: string, store: McpCredentialStore, record: McpCredentialRecord | undefined, now = Date.now()): McpAuthStatus {
  const base = { server: id, backend: store.backend, location: store.location };
  if (!record) return { ...base, loggedIn: false };
  return {
    ...base,
    loggedIn: true,
    issuer: record.issuer,
    clientId: record.client.client_id,
    ...(record.tokens.scope ? { scope: record.tokens.scope } : {}),
    refreshable: record.tokens.refresh_token !== undefined,
    obtainedAt: record.obtainedAt,
    ...(record.expiresAt === undefined ? {} : { expiresAt: record.expiresAt, expired: record.expiresAt <= now }),
  };
}
