/**
 * Exchanges the stored GitHub token for a short-lived Copilot API token
 * (and the API endpoint GitHub assigns), caching it until shortly before it
 * expires. A refused exchange is an auth failure with a 401-like status, so
 * the shared policy never retries it.
 */
import type { CredentialStore } from '../../core/index.js';
import { MissingCredentialError } from '../providers-shared/index.js';

/** A usable Copilot API token. */
export interface CopilotToken {
  token: string;
  /** ms since the epoch. */
  expiresAt: number;
  /** The chat API base URL. */
  apiUrl: string;
}

/** A refused exchange; `status` makes the shared classifier treat it as auth (401/403) or server (5xx). */
export class CopilotExchangeError extends Error {
  override readonly name = 'CopilotExchangeError';
  constructor(
    message: string,
    readonly status: number,
    readonly headers?: Headers,
  ) {
    super(message);
  }
}

const REFRESH_MARGIN_MS = 60_000;

export const COPILOT_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Editor-Version': 'xdog/0.1.0',
  'Editor-Plugin-Version': 'xdog/0.1.0',
  'Copilot-Integration-Id': 'vscode-chat',
});

export interface TokenSourceOptions {
  store: CredentialStore;
  /** Default https://api.github.com. */
  githubApiUrl?: string;
  /** Default https://api.githubcopilot.com (used when the exchange names none). */
  defaultApiUrl?: string;
  /** Env variables holding a GitHub token, tried before the store. */
  envNames?: readonly string[];
  env?: NodeJS.ProcessEnv;
  now?: () => number;
  /** How long the exchange may take, in ms (default 600 000, the provider request timeout). */
  timeoutMs?: number;
}

export class CopilotTokenSource {
  #cached?: CopilotToken;
  constructor(private readonly options: TokenSourceOptions) {}

  /** The GitHub token behind Copilot (never shown). */
  githubToken(): string | undefined {
    const env = this.options.env ?? process.env;
    for (const name of this.options.envNames ?? []) if (env[name]) return env[name];
    const stored = this.options.store.get('copilot');
    return stored?.type === 'oauth' ? stored.refresh : undefined;
  }

  async token(signal?: AbortSignal): Promise<CopilotToken> {
    const now = this.options.now?.() ?? Date.now();
    if (this.#cached && this.#cached.expiresAt - REFRESH_MARGIN_MS > now) return this.#cached;
    const github = this.githubToken();
    if (!github) throw new MissingCredentialError('not logged in to GitHub Copilot');
    const api = (this.options.githubApiUrl ?? 'https://api.github.com').replace(/\/+$/, '');
    const timeoutMs = this.options.timeoutMs ?? 600_000;
    // The caller's abort still wins; the timeout only ends an exchange nobody answers.
    const timeout = AbortSignal.timeout(timeoutMs);
    let body: { token?: unknown; expires_at?: unknown; endpoints?: { api?: unknown } };
    try {
      const response = await fetch(`${api}/copilot_internal/v2/token`, {
        headers: { accept: 'application/json', authorization: `token ${github}`, ...COPILOT_HEADERS },
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      if (!response.ok) {
        await response.body?.cancel();
        const reason = response.status === 401 || response.status === 403 ? 'GitHub refused the Copilot token exchange (is Copilot enabled for this account?)' : 'the Copilot token exchange failed';
        throw new CopilotExchangeError(reason, response.status, response.headers);
      }
      body = (await response.json()) as typeof body;
    } catch (error) {
      if (!timeout.aborted || signal?.aborted) throw error;
      // A gateway-timeout status: the shared policy may retry it (nothing was sent to a model yet).
      throw new CopilotExchangeError(`the Copilot token exchange at ${api} did not answer within ${timeoutMs / 1000} s`, 504);
    }
    if (typeof body.token !== 'string' || typeof body.expires_at !== 'number') throw new CopilotExchangeError('the Copilot token exchange returned no token', 502);
    this.#cached = {
      token: body.token,
      expiresAt: body.expires_at * 1000,
      apiUrl: typeof body.endpoints?.api === 'string' ? body.endpoints.api : (this.options.defaultApiUrl ?? 'https://api.githubcopilot.com'),
    };
    return this.#cached;
  }
}
