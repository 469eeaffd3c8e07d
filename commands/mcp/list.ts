import { McpRegistry, type McpServerStatus } from '../../plugins/mcp/index.js';
import { XdogCommand } from '../base-command.js';

export default class McpList extends XdogCommand {
  static override summary = 'List the MCP servers in the config file (starts nothing)';
  static override enableJsonFlag = true;
  static override examples = ['<%= config.bin %> mcp list', '<%= config.bin %> mcp list --json'];

  async run(): Promise<McpServerStatus[]> {
    const { flags } = await this.parse(McpList);
    const { config } = await this.loadConfig(flags);
    const statuses = McpRegistry.fromConfig(config.mcp_servers, { cwd: process.cwd() }).status();
    if (!this.jsonEnabled()) {
      if (statuses.length === 0) this.log('no MCP servers configured (add them under mcp_servers; see docs/config.md)');
      for (const status of statuses) {
        const env = status.envNames.length ? `  env: ${status.envNames.join(', ')}` : '';
        const headers = status.headerNames.length ? `  headers: ${status.headerNames.join(', ')}` : '';
        this.log(`${status.id}  ${status.transport}  ${status.target}  allow_tools: ${status.allowTools}${env}${headers}`);
      }
    }
    return statuses;
  }
}
