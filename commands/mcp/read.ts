import { Args } from '@oclif/core';
import { formatDocument, withConfiguredServer, type McpDocument } from '../../plugins/mcp/index.js';
import { XdogCommand } from '../base-command.js';

export default class McpRead extends XdogCommand {
  static override summary = 'Read one resource of a configured MCP server (links inside are not followed)';
  static override enableJsonFlag = true;
  static override args = {
    server: Args.string({ ignoreStdin: true, description: 'server id from mcp_servers', required: true }),
    uri: Args.string({ ignoreStdin: true, description: 'the resource URI', required: true }),
  };
  static override examples = ['<%= config.bin %> mcp read everything demo://resource/static/document/architecture.md'];

  async run(): Promise<McpDocument> {
    const { args, flags } = await this.parse(McpRead);
    const { config } = await this.loadConfig(flags);
    const document = await withConfiguredServer(config, args.server, process.cwd(), (registry) => registry.resource(args.server, args.uri));
    if (!this.jsonEnabled()) this.log(formatDocument(document));
    return document;
  }
}
