/**
 * OAuth 2.1 for HTTP MCP servers (authorization code + PKCE S256), on the MCP
 * SDK's client auth: discovery from the 401's `WWW-Authenticate`
 * resource_metadata pointer, else RFC 9728 then RFC 8414 / OIDC metadata;
 * dynamic (RFC 7591), pre-registered or client-id-metadata-document
 * registration; the RFC 8707 resource. Here we add what the SDK leaves to the
 * host: the loopback redirect with its deadline, the state and issuer checks,
 * the rule that a grant may narrow the asked scopes but never widen them, a
 * refresh that runs only when asked (or `auto_refresh: true`), and saving to
 * the store the user chose.
 */
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { auth, discoverAuthorizationServerMetadata, extractWWWAuthenticateParams, refreshAuthorization, type OAuthClientProvider, type OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { ErrorCodes, XdogError } from '../../core/index.js';
import type { McpCredentialRecord, McpCredentialStore } from './credential-store.js';
import type { McpHttpConfig } from './server-config.js';

type OAuthConfig = NonNullable<McpHttpConfig['oauth']>;

/** Seconds a login waits for the browser to come back, unless told otherwise. */
export const LOGIN_DEADLINE_SECONDS = 300;

const authFailed = (message: string, hint: string): XdogError => new XdogError(ErrorCodes.AUTH_FAILED, message, { hint });

/** The OAuth settings of a server, or a clear error when it has none. */
function oauthOf(id: string, config: McpHttpConfig): OAuthConfig {
  if (!config.oauth) throw new XdogError(ErrorCodes.CONFIG_INVALID, `MCP server "${id}" has no oauth section`, { hint: `add mcp_servers.${id}.oauth (docs/mcp.md "OAuth")` });
  return config.oauth;
}

function registrationOf(oauth: OAuthConfig): 'dynamic' | 'pre-registered' | 'metadata' {
  return oauth.registration ?? (oauth.client_metadata_url ? 'metadata' : oauth.client_id ? 'pre-registered' : 'dynamic');
}

/** The pre-registered client, its secret read from `client_secret_env` now. */
function preRegistered(id: string, oauth: OAuthConfig, env: NodeJS.ProcessEnv): OAuthClientInformationMixed {
  const secret = oauth.client_secret_env ? env[oauth.client_secret_env] : undefined;
  if (oauth.client_secret_env && !secret) throw new XdogError(ErrorCodes.CONFIG_INVALID, `mcp_servers.${id}.oauth.client_secret_env names ${oauth.client_secret_env}, which is not set`, { hint: `export ${oauth.client_secret_env} first` });
  return { client_id: oauth.client_id!, ...(secret ? { client_secret: secret } : {}) };
}

/** Refuses a grant with a scope nobody asked for. */
export function checkScopes(id: string, asked: readonly string[] | undefined, tokens: OAuthTokens): void {
  if (!asked?.length || !tokens.scope) return;
  const wider = tokens.scope.split(/\s+/).filter((scope) => scope && !asked.includes(scope));
  if (wider.length) {
    throw authFailed(`the authorization server of MCP server "${id}" granted scopes beyond those asked for (${wider.join(', ')}); the tokens were refused and nothing was saved`, `scopes may narrow, never widen: ask for them in mcp_servers.${id}.oauth.scopes if you want them`);
  }
}

function sameIssuer(a: string, b: string): boolean {
  return new URL(a).href.replace(/\/$/, '') === new URL(b).href.replace(/\/$/, '');
}

/** RFC 8414 §3.3: the metadata's issuer must be the server it was fetched for. */
function checkIssuer(id: string, discovery: OAuthDiscoveryState | undefined): string {
  if (!discovery) throw authFailed(`MCP server "${id}": the authorization server was not discovered`, 'check the server url');
  const issuer = discovery.authorizationServerMetadata?.issuer ?? discovery.authorizationServerUrl;
  if (!sameIssuer(issuer, discovery.authorizationServerUrl)) {
    throw authFailed(`MCP server "${id}": the authorization server metadata names issuer ${issuer}, not ${discovery.authorizationServerUrl}; refused`, 'a metadata document for another issuer is a sign of a mix-up; check the server');
  }
  return issuer;
}

/** The provider the SDK's `auth()` drives for one login. */
class LoginProvider implements OAuthClientProvider {
  readonly #state = randomBytes(24).toString('base64url');
  #verifier?: string;
  #client?: OAuthClientInformationMixed;
  #tokens?: OAuthTokens;
  #discovery?: OAuthDiscoveryState;
  authorizationUrl?: URL;

  constructor(
    private readonly id: string,
    private readonly oauth: OAuthConfig,
    /** What this login asks for: a grant wider than it is refused. */
    private readonly scopes: readonly string[] | undefined,
    readonly redirectUrl: string,
    env: NodeJS.ProcessEnv,
  ) {
    if (registrationOf(oauth) === 'pre-registered') this.#client = preRegistered(id, oauth, env);
  }

  get clientMetadataUrl(): string | undefined {
    return registrationOf(this.oauth) === 'metadata' ? this.oauth.client_metadata_url : undefined;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'xdog',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: this.oauth.client_secret_env ? 'client_secret_basic' : 'none',
      ...(this.scopes?.length ? { scope: this.scopes.join(' ') } : {}),
    };
  }

  state(): string {
    return this.#state;
  }
  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.#client;
  }
  saveClientInformation(client: OAuthClientInformationMixed): void {
    this.#client = client;
  }
  tokens(): OAuthTokens | undefined {
    return this.#tokens;
  }
  saveTokens(tokens: OAuthTokens): void {
    checkScopes(this.id, this.scopes, tokens);
    this.#tokens = tokens;
  }
  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string): void {
    this.#verifier = verifier;
  }
  codeVerifier(): string {
    if (!this.#verifier) throw authFailed(`MCP server "${this.id}": no PKCE verifier for this login`, 'start the login again');
    return this.#verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.#discovery = state;
  }
  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#discovery;
  }
}

/** The loopback redirect: one listener on 127.0.0.1 that takes one callback. */
async function listenLoopback(port: number): Promise<{ url: string; next(deadlineMs: number, signal?: AbortSignal): Promise<URLSearchParams>; close(): void }> {
  let deliver: ((query: URLSearchParams) => void) | undefined;
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (request.method !== 'GET' || url.pathname !== '/callback' || !deliver) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    const take = deliver;
    deliver = undefined;
    response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('xdog received the answer; you may close this page and go back to the terminal.\n');
    take(url.searchParams);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new XdogError(ErrorCodes.UNAVAILABLE, `port ${port} on 127.0.0.1 is in use; the OAuth redirect cannot listen there`, { hint: 'free it, or change oauth.redirect_port' }) : error),
    );
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const actual = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${actual}/callback`,
    next: (deadlineMs, signal) =>
      new Promise((resolve, reject) => {
        const stop = (error: XdogError): void => {
          clearTimeout(timer);
          deliver = undefined;
          reject(error);
        };
        const aborted = (): void => stop(new XdogError(ErrorCodes.ABORTED, 'the login was cancelled before the browser answered; nothing was saved'));
        const timer = setTimeout(() => stop(authFailed(`no answer came back to the OAuth redirect within ${Math.round(deadlineMs / 1000)} s; nothing was saved`, 'run the login again and open the URL it prints')), deadlineMs);
        if (signal?.aborted) return aborted();
        signal?.addEventListener('abort', aborted, { once: true });
        deliver = (query) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', aborted);
          resolve(query);
        };
      }),
    close: () => void server.close(),
  };
}

/**
 * Asks the endpoint without a token: a 401's challenge may point at its
 * protected-resource metadata (RFC 9728 §5.1) and name the scope it needs.
 */
async function challengeOf(url: string): Promise<{ resourceMetadataUrl?: URL; scope?: string }> {
  const response = await fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'ping' }),
    signal: AbortSignal.timeout(30_000),
  }).catch(() => undefined);
  if (!response) return {};
  await response.body?.cancel();
  if (response.status !== 401) return {};
  const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
  return { ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}), ...(scope ? { scope } : {}) };
}

export interface LoginOptions {
  env?: NodeJS.ProcessEnv;
  /** Told the authorization URL for the person to open (a headless gateway prints it). */
  onAuthorizationUrl(url: URL): void;
  deadlineMs?: number;
  /** Cancels a login still waiting for the browser (a stopping gateway). */
  signal?: AbortSignal;
  now?: () => number;
}

/** Runs the whole login of one server and saves its credentials in `store`. */
export async function loginMcpServer(id: string, config: McpHttpConfig, store: McpCredentialStore, options: LoginOptions): Promise<McpCredentialRecord> {
  const oauth = oauthOf(id, config);
  const now = options.now ?? Date.now;
  const loopback = await listenLoopback(oauth.redirect_port ?? 0);
  try {
    const { resourceMetadataUrl, scope: challenged } = await challengeOf(config.url);
    // The configured scopes, else those the server's challenge names (else the SDK takes the metadata's scopes_supported).
    const asked = oauth.scopes?.length ? oauth.scopes : challenged?.split(' ').filter(Boolean);
    const provider = new LoginProvider(id, oauth, asked, loopback.url, options.env ?? process.env);
    const scope = asked?.join(' ');
    const first = await auth(provider, { serverUrl: config.url, ...(scope ? { scope } : {}), ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}) });
    const issuer = checkIssuer(id, provider.discoveryState());
    if (first !== 'REDIRECT' || !provider.authorizationUrl) throw authFailed(`MCP server "${id}": the authorization server did not ask for a login`, 'check the server');
    options.onAuthorizationUrl(provider.authorizationUrl);
    const answer = await loopback.next(options.deadlineMs ?? LOGIN_DEADLINE_SECONDS * 1000, options.signal);
    if (answer.get('error')) throw authFailed(`MCP server "${id}": the authorization was refused (${answer.get('error')}${answer.get('error_description') ? `: ${answer.get('error_description')}` : ''}); nothing was saved`, 'run the login again');
    if (answer.get('state') !== provider.state()) throw authFailed(`MCP server "${id}": the OAuth answer carries a state that this login did not send; it was refused and nothing was saved`, 'run the login again; an answer with another state may be a forged one');
    const iss = answer.get('iss');
    if (iss && !sameIssuer(iss, issuer)) throw authFailed(`MCP server "${id}": the OAuth answer comes from issuer ${iss}, not ${issuer}; refused`, 'run the login again');
    const code = answer.get('code');
    if (!code) throw authFailed(`MCP server "${id}": the OAuth answer has no code`, 'run the login again');
    await auth(provider, { serverUrl: config.url, authorizationCode: code, ...(scope ? { scope } : {}), ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}) });
    const tokens = provider.tokens()!;
    const client = provider.clientInformation()!;
    const record: McpCredentialRecord = {
      version: 1,
      server: id,
      resource: config.url,
      issuer,
      authorizationServerUrl: provider.discoveryState()!.authorizationServerUrl,
      client: { ...client },
      tokens: { ...tokens },
      obtainedAt: now(),
      ...(tokens.expires_in === undefined ? {} : { expiresAt: now() + tokens.expires_in * 1000 }),
    };
    await store.save(record);
    return record;
  } finally {
    loopback.close();
  }
}

/** Exchanges the saved refresh token for new tokens (an explicit action, or auto_refresh) and saves them. */
export async function refreshMcpLogin(id: string, config: McpHttpConfig, store: McpCredentialStore, now: () => number = Date.now): Promise<McpCredentialRecord> {
  const oauth = oauthOf(id, config);
  const saved = await store.load(id);
  if (!saved) throw authFailed(`MCP server "${id}" has no saved login in ${store.location}`, `run xdog mcp login ${id}`);
  if (!saved.tokens.refresh_token) throw authFailed(`the saved login of MCP server "${id}" has no refresh token`, `run xdog mcp login ${id} again`);
  if (saved.resource !== config.url) throw authFailed(`the saved login of MCP server "${id}" is for ${saved.resource}, not ${config.url}`, `run xdog mcp login ${id} again`);
  const metadata = await discoverAuthorizationServerMetadata(saved.authorizationServerUrl);
  if (metadata?.issuer && !sameIssuer(metadata.issuer, saved.issuer)) throw authFailed(`MCP server "${id}": the authorization server now names issuer ${metadata.issuer}, not ${saved.issuer}; refused`, `run xdog mcp login ${id} again`);
  const tokens = await refreshAuthorization(saved.authorizationServerUrl, { ...(metadata ? { metadata } : {}), clientInformation: saved.client, refreshToken: saved.tokens.refresh_token, resource: new URL(saved.resource) });
  // Bounded by what was asked, else by the saved grant: a refresh never widens it.
  checkScopes(id, oauth.scopes?.length ? oauth.scopes : saved.tokens.scope?.split(' ').filter(Boolean), tokens);
  const record: McpCredentialRecord = {
    ...saved,
    tokens: { ...tokens, refresh_token: tokens.refresh_token ?? saved.tokens.refresh_token },
    obtainedAt: now(),
    ...(tokens.expires_in === undefined ? { expiresAt: undefined } : { expiresAt: now() + tokens.expires_in * 1000 }),
  };
  if (record.expiresAt === undefined) delete record.expiresAt;
  await store.save(record);
  return record;
}

/**
 * The access token a connect sends for a server with `oauth`: the saved one;
 * an expired one is refreshed only under `auto_refresh: true`.
 */
export async function accessTokenFor(id: string, config: McpHttpConfig, store: McpCredentialStore | undefined, now: () => number = Date.now): Promise<string> {
  if (!store) throw authFailed(`MCP server "${id}" needs an OAuth login, and no credentials are kept (mcp_credential_backend is not set)`, `set mcp_credential_backend: file in the config, then run xdog mcp login ${id}`);
  let saved = await store.load(id);
  if (!saved) throw authFailed(`MCP server "${id}" is not logged in (nothing in ${store.location})`, `run xdog mcp login ${id}`);
  if (saved.resource !== config.url) throw authFailed(`the saved login of MCP server "${id}" is for ${saved.resource}, not ${config.url}`, `run xdog mcp login ${id} again`);
  if (saved.expiresAt !== undefined && saved.expiresAt <= now()) {
    if (config.oauth?.auto_refresh !== true) throw authFailed(`the access token of MCP server "${id}" expired at ${new Date(saved.expiresAt).toISOString()}`, `run xdog mcp login ${id} --refresh (or set oauth.auto_refresh: true)`);
    saved = await refreshMcpLogin(id, config, store, now);
  }
  return saved.tokens.access_token;
}
