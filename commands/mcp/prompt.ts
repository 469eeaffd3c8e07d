import { Args } from '@oclif/core';
import { formatDocument, parseJsonObject, withConfiguredServer, type McpDocument } from '../../plugins/mcp/index.js';
import { XdogCommand } from '../base-command.js';

export default class McpPrompt extends XdogCommand {
  static override summary = 'Get one prompt of a configured MCP server as an inert preview (nothing is sent to a model)';
  static override enableJsonFlag = true;
  static override args = {
    server: Args.string({ ignoreStdin: true, description: 'server id from mcp_servers', required: true }),
    name: Args.string({ ignoreStdin: true, description: 'the prompt name', required: true }),
    arguments: Args.string({ ignoreStdin: true, description: 'prompt arguments as a JSON object of strings', required: false }),
  };
  static override examples = [`<%= config.bin %> mcp prompt everything args-prompt '{"city":"Paris"}'`];

  async run(): Promise<McpDocument> {
    const { args, flags } = await this.parse(McpPrompt);
    const { config } = await this.loadConfig(flags);
    const promptArgs = parseJsonObject(args.arguments, 'the prompt arguments');
    const document = await withConfiguredServer(config, args.server, process.cwd(), (registry) =>
      registry.prompt(args.server, args.name, promptArgs),
    );
    if (!this.jsonEnabled()) this.log(formatDocument(document));
    return document;
  }
}
