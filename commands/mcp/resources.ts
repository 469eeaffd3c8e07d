import { Args, Flags } from '@oclif/core';
import { withConfiguredServer, type McpResourceEntry, type McpTemplateEntry } from '../../plugins/mcp/index.js';
import { XdogCommand } from '../base-command.js';

export default class McpResources extends XdogCommand {
  static override summary = 'List the resources (or resource templates) of a configured MCP server';
  static override enableJsonFlag = true;
  static override args = { server: Args.string({ ignoreStdin: true, description: 'server id from mcp_servers', required: true }) };
  static override flags = { templates: Flags.boolean({ description: 'list resource templates instead' }) };
  static override examples = ['<%= config.bin %> mcp resources everything', '<%= config.bin %> mcp resources everything --templates'];

  async run(): Promise<ReadonlyArray<McpResourceEntry | McpTemplateEntry>> {
    const { args, flags } = await this.parse(McpResources);
    const { config } = await this.loadConfig(flags);
    const entries = await withConfiguredServer<ReadonlyArray<McpResourceEntry | McpTemplateEntry>>(config, args.server, process.cwd(), (registry) =>
      flags.templates ? registry.catalog(args.server, 'template') : registry.catalog(args.server, 'resource'),
    );
    if (!this.jsonEnabled()) {
      for (const entry of entries) {
        const where = 'uri' in entry ? entry.uri : entry.uriTemplate;
        this.log(`${where}  ${entry.name}${entry.mimeType ? `  ${entry.mimeType}` : ''}`);
      }
    }
    return entries;
  }
}
