import { Args } from '@oclif/core';
import { oauthServerOf } from '../../plugins/mcp/index.js';
import { XdogCommand } from '../base-command.js';

export default class McpLogout extends XdogCommand {
  static override summary = "Forget an MCP server's saved OAuth login (the tokens are removed from the store; the authorization server is not told)";
  static override enableJsonFlag = true;
  static override args = { server: Args.string({ description: 'server id from mcp_servers', required: true }) };
  static override examples = ['<%= config.bin %> mcp logout remote'];

  async run(): Promise<{ server: string; removed: boolean }> {
    const { args, flags } = await this.parse(McpLogout);
    const { config } = await this.loadConfig(flags);
    const { store } = oauthServerOf(config, args.server);
    const removed = await store.remove(args.server);
    if (!this.jsonEnabled()) this.log(removed ? `forgot the login of ${args.server}` : `${args.server} had no saved login`);
    return { server: args.server, removed };
  }
}
