import { Args } from '@oclif/core';
import { withConfiguredServer, type McpPromptEntry } from '../../plugins/mcp/index.js';
import { XdogCommand } from '../base-command.js';

export default class McpPrompts extends XdogCommand {
  static override summary = 'List the prompts of a configured MCP server';
  static override enableJsonFlag = true;
  static override args = { server: Args.string({ ignoreStdin: true, description: 'server id from mcp_servers', required: true }) };
  static override examples = ['<%= config.bin %> mcp prompts everything'];

  async run(): Promise<readonly McpPromptEntry[]> {
    const { args, flags } = await this.parse(McpPrompts);
    const { config } = await this.loadConfig(flags);
    const prompts = await withConfiguredServer(config, args.server, process.cwd(), (registry) => registry.catalog(args.server, 'prompt'));
    if (!this.jsonEnabled()) {
      for (const prompt of prompts) {
        const params = prompt.arguments.map((arg) => (arg.required ? arg.name : `[${arg.name}]`)).join(' ');
        this.log(`${prompt.name}${params ? ` ${params}` : ''}${prompt.description ? `  ${prompt.description}` : ''}`);
      }
    }
    return prompts;
  }
}
