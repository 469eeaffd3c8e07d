import { Args } from '@oclif/core';
import { authStatusOf, oauthServerOf, type McpAuthStatus } from '../../plugins/mcp/index.js';
import { XdogCommand } from '../base-command.js';

export default class McpAuthStatusCommand extends XdogCommand {
  static override summary = "Show an MCP server's saved OAuth login: issuer, client, scope, expiry (never a token)";
  static override enableJsonFlag = true;
  static override args = { server: Args.string({ description: 'server id from mcp_servers', required: true }) };
  static override examples = ['<%= config.bin %> mcp auth-status remote'];

  async run(): Promise<McpAuthStatus> {
    const { args, flags } = await this.parse(McpAuthStatusCommand);
    const { config } = await this.loadConfig(flags);
    const { store } = oauthServerOf(config, args.server);
    const status = authStatusOf(args.server, store, await store.load(args.server));
    if (!this.jsonEnabled()) {
      if (!status.loggedIn) this.log(`${args.server}: not logged in (${store.backend}: ${store.location})`);
      else this.log(`${args.server}: logged in, issuer ${status.issuer}, client ${status.clientId}${status.scope ? `, scope ${status.scope}` : ''}${status.expiresAt ? `, ${status.expired ? 'expired' : 'expires'} ${new Date(status.expiresAt).toISOString()}` : ''}${status.refreshable ? ', refreshable' : ''}`);
    }
    return status;
  }
}
