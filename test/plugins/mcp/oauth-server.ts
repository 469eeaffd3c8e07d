/**
 * A real OAuth 2.1 authorization server and an MCP resource server behind it,
 * in the test process: the SDK's server-side auth router (metadata, dynamic
 * registration, /authorize with PKCE S256, /token) over a small in-memory
 * provider that tests steer (widen the next grant, expire every token), and a
 * Streamable HTTP MCP server whose one tool needs a valid bearer token.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { InvalidTokenError, InvalidGrantError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import { getOAuthProtectedResourceMetadataUrl, mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';

type Handler = (req: IncomingMessage & { body?: unknown }, res: ServerResponse & { status(code: number): { end(): void } }, next?: () => void) => unknown;
interface ExpressApp {
  use(handler: unknown): void;
  post(path: string, ...handlers: unknown[]): void;
  all(path: string, ...handlers: unknown[]): void;
  listen(port: number, host: string, ready: () => void): Server;
}
/** express comes with the MCP SDK (its auth router is an express handler); it has no type declarations here. */
const express = createRequire(import.meta.url)('express') as (() => ExpressApp) & { json(): Handler };

interface Issued {
  clientId: string;
  scopes: string[];
  expiresAt: number;
  resource?: string;
}

export class TestAuthorizationServer implements OAuthServerProvider {
  readonly clients = new Map<string, OAuthClientInformationFull>();
  readonly codes = new Map<string, { client: OAuthClientInformationFull; params: AuthorizationParams }>();
  readonly access = new Map<string, Issued>();
  readonly refresh = new Map<string, Issued>();
  /** Every grant type the token endpoint served, in order. */
  readonly grants: string[] = [];
  /** The next code exchange grants this extra scope (a widening the client must refuse). */
  widenNext?: string;

  get clientsStore() {
    return {
      getClient: async (id: string) => this.clients.get(id),
      registerClient: async (metadata: Omit<OAuthClientInformationFull, 'client_id' | 'client_id_issued_at'>) => {
        const client = { ...metadata, client_id: randomUUID(), client_id_issued_at: Math.floor(Date.now() / 1000) } as OAuthClientInformationFull;
        this.clients.set(client.client_id, client);
        return client;
      },
    };
  }

  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: { redirect(url: string): void }): Promise<void> {
    // Approves at once (the person's consent is not what is under test).
    const code = randomUUID();
    this.codes.set(code, { client, params });
    const target = new URL(params.redirectUri);
    target.searchParams.set('code', code);
    if (params.state) target.searchParams.set('state', params.state);
    res.redirect(target.href);
  }

  async challengeForAuthorizationCode(_client: OAuthClientInformationFull, code: string): Promise<string> {
    const found = this.codes.get(code);
    if (!found) throw new InvalidGrantError('unknown code');
    return found.params.codeChallenge;
  }

  #issue(clientId: string, scopes: string[], resource: URL | undefined) {
    const access = randomUUID();
    const refresh = randomUUID();
    const issued = { clientId, scopes, expiresAt: Date.now() + 3600_000, ...(resource ? { resource: resource.href } : {}) };
    this.access.set(access, issued);
    this.refresh.set(refresh, issued);
    return { access_token: access, token_type: 'bearer', expires_in: 3600, refresh_token: refresh, scope: scopes.join(' ') };
  }

  async exchangeAuthorizationCode(client: OAuthClientInformationFull, code: string, _verifier?: string, _redirectUri?: string, resource?: URL) {
    const found = this.codes.get(code);
    if (!found || found.client.client_id !== client.client_id) throw new InvalidGrantError('unknown code');
    this.codes.delete(code);
    this.grants.push('authorization_code');
    const scopes = [...(found.params.scopes ?? []), ...(this.widenNext ? [this.widenNext] : [])];
    this.widenNext = undefined;
    return this.#issue(client.client_id, scopes, resource);
  }

  async exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string, _scopes?: string[], resource?: URL) {
    const found = this.refresh.get(refreshToken);
    if (!found || found.clientId !== client.client_id) throw new InvalidGrantError('unknown refresh token');
    this.refresh.delete(refreshToken);
    this.grants.push('refresh_token');
    return this.#issue(client.client_id, found.scopes, resource);
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const found = this.access.get(token);
    // InvalidTokenError, not a plain Error: the middleware answers 401 (a plain error would be a 500).
    if (!found || found.expiresAt <= Date.now()) throw new InvalidTokenError('the token is unknown or expired');
    return { token, clientId: found.clientId, scopes: found.scopes, expiresAt: Math.floor(found.expiresAt / 1000), ...(found.resource ? { resource: new URL(found.resource) } : {}) };
  }

  /** Every access token issued so far stops working (as at its expiry). */
  expireAll(): void {
    for (const issued of this.access.values()) issued.expiresAt = 0;
  }
}

/** Starts the authorization server and the protected MCP endpoint on one loopback port. */
export async function startOAuthMcpServer(): Promise<{ url: string; issuer: string; provider: TestAuthorizationServer; close(): Promise<void> }> {
  const provider = new TestAuthorizationServer();
  const app = express();
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const mcpUrl = new URL(`${base}/mcp`);
  app.use(
    mcpAuthRouter({
      provider,
      issuerUrl: new URL(base),
      resourceServerUrl: mcpUrl,
      scopesSupported: ['mcp:tools', 'admin'],
      authorizationOptions: { rateLimit: false },
      clientRegistrationOptions: { rateLimit: false },
      tokenOptions: { rateLimit: false },
      revocationOptions: { rateLimit: false },
    }),
  );
  const bearer = requireBearerAuth({ verifier: provider, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl) });
  app.post('/mcp', bearer, express.json(), (async (req, res) => {
    const mcp = new McpServer({ name: 'oauth-test', version: '1.0.0' });
    mcp.registerTool('whoami', { description: 'the OAuth client calling' }, async (extra) => ({ content: [{ type: 'text', text: `client ${extra.authInfo?.clientId} scopes ${extra.authInfo?.scopes.join(' ')}` }] }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close());
    await mcp.connect(transport);
    await transport.handleRequest(req, res, req.body);
  }) as Handler);
  app.all('/mcp', bearer, ((_req, res) => void res.status(405).end()) as Handler);
  return {
    url: mcpUrl.href,
    issuer: base,
    provider,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
