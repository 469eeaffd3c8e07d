/**
 * OAuth logins started from a client (`mcp.authorize`, `/mcp authorize`): the
 * gateway that owns the group runs the loopback redirect, answers the URL for
 * the person to open at once, and waits for the browser (at most the login
 * deadline) in the background; the end is announced, the tokens go to the
 * configured store. One login per server at a time.
 */
import { ErrorCodes, XdogError, describeError, type XdogConfig } from '../../core/index.js';
import { loadMcpOAuth, oauthServerOf } from '../mcp/index.js';

export class GroupLogins {
  readonly #running = new Set<string>();
  readonly #cancel = new AbortController();
  #stopped = false;

  /** Starts the login of `server`; resolves with the authorization URL once there is one. */
  async start(config: XdogConfig, server: string, announce: (status: 'authorized' | 'failed', message: string) => void): Promise<{ server: string; authorizationUrl: string }> {
    if (this.#stopped) throw new XdogError(ErrorCodes.UNAVAILABLE, 'the gateway is stopping', { hint: 'log in with xdog mcp login SERVER instead' });
    if (this.#running.has(server)) throw new XdogError(ErrorCodes.BUSY, `a login of MCP server "${server}" is already waiting for its browser`, { hint: 'finish or let that one time out first' });
    const { server: http, store } = oauthServerOf(config, server);
    const oauth = await loadMcpOAuth();
    this.#running.add(server);
    return new Promise((resolve, reject) => {
      let answered = false;
      oauth
        .loginMcpServer(server, http, store, {
          signal: this.#cancel.signal,
          onAuthorizationUrl: (url) => {
            answered = true;
            resolve({ server, authorizationUrl: url.href });
          },
        })
        .then(
          (record) => announce('authorized', `logged in to ${server} (issuer ${record.issuer}); saved in ${store.location}; connect it again to use the new token`),
          (error: unknown) => (answered ? announce('failed', describeError(error)) : reject(error)),
        )
        .finally(() => this.#running.delete(server));
    });
  }

  /** Takes no new logins and cancels those waiting for a browser (nothing of theirs is saved). */
  stop(): void {
    this.#stopped = true;
    this.#cancel.abort();
  }
}
