import { Args } from '@oclif/core';
import { withConfiguredServer, type McpToolInfo } from '../../plugins/mcp/index.js';
import { XdogCommand } from '../base-command.js';

export default class McpTools extends XdogCommand {
  static override summary = 'Connect to a configured MCP server and list its tools';
  static override enableJsonFlag = true;
  static override args = { server: Args.string({ ignoreStdin: true, description: 'server id from mcp_servers', required: true }) };
  static override examples = ['<%= config.bin %> mcp tools files'];

  async run(): Promise<{ tools: McpToolInfo[]; diagnostics: string[] }> {
    const { args, flags } = await this.parse(McpTools);
    const { config } = await this.loadConfig(flags);
    const listing = await withConfiguredServer(config, args.server, process.cwd(), async (registry) => ({
      tools: registry.tools(args.server),
      diagnostics: registry.status(args.server)[0]!.diagnostics,
    }));
    if (!this.jsonEnabled()) {
      for (const tool of listing.tools) this.log(`${tool.alias}  ${tool.description.split('\n')[0]}`);
      for (const line of listing.diagnostics) this.logToStderr(`warning: ${line}`);
    }
    return listing;
  }
}
