import { Args, Flags } from '@oclif/core';
import { authStatusOf, loadMcpOAuth, oauthServerOf, type McpAuthStatus } from '../../plugins/mcp/index.js';
import { XdogCommand } from '../base-command.js';

export default class McpLogin extends XdogCommand {
  static override summary = 'Log in to an HTTP MCP server with OAuth (authorization code + PKCE), or refresh its saved login';
  static override description =
    'Prints the authorization URL for you to open, and waits (up to --timeout) for the answer on the loopback redirect http://127.0.0.1:PORT/callback. ' +
    'The tokens go to the store mcp_credential_backend names (file or secret-service). --refresh exchanges the saved refresh token instead: tokens are refreshed only this way, or at connect with oauth.auto_refresh: true.';
  static override enableJsonFlag = true;
  static override args = { server: Args.string({ description: 'server id from mcp_servers', required: true }) };
  static override flags = {
    refresh: Flags.boolean({ description: 'refresh the saved login with its refresh token (no browser)' }),
    timeout: Flags.integer({ description: 'seconds to wait for the browser to come back', default: 300, min: 1, max: 3600 }),
  };
  static override examples = ['<%= config.bin %> mcp login remote', '<%= config.bin %> mcp login remote --refresh'];

  async run(): Promise<McpAuthStatus> {
    const { args, flags } = await this.parse(McpLogin);
    const { config } = await this.loadConfig(flags);
    const { server, store } = oauthServerOf(config, args.server);
    const oauth = await loadMcpOAuth();
    const record = flags.refresh
      ? await oauth.refreshMcpLogin(args.server, server, store)
      : await oauth.loginMcpServer(args.server, server, store, {
          deadlineMs: flags.timeout * 1000,
          onAuthorizationUrl: (url) => process.stderr.write(`Open this URL in a browser to authorize xdog for MCP server "${args.server}" (waiting up to ${flags.timeout} s):\n${url.href}\n`),
        });
    const status = authStatusOf(args.server, store, record);
    if (!this.jsonEnabled()) this.log(`${flags.refresh ? 'refreshed' : 'logged in to'} ${args.server} (issuer ${status.issuer}${status.scope ? `, scope ${status.scope}` : ''}); saved in ${store.location}`);
    return status;
  }
}
