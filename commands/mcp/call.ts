import { Args } from '@oclif/core';
import type { AgentToolResult } from '../../core/index.js';
import { formatToolResult, parseJsonObject, withConfiguredServer } from '../../plugins/mcp/index.js';
import { XdogCommand } from '../base-command.js';

export default class McpCall extends XdogCommand {
  static override summary = 'Call one tool of a configured MCP server (an explicit action: allow_tools governs agents, not you)';
  static override enableJsonFlag = true;
  static override args = {
    server: Args.string({ ignoreStdin: true, description: 'server id from mcp_servers', required: true }),
    tool: Args.string({ ignoreStdin: true, description: "the server's tool name", required: true }),
    arguments: Args.string({ ignoreStdin: true, description: 'tool arguments as a JSON object', required: false }),
  };
  static override examples = [`<%= config.bin %> mcp call everything echo '{"message":"hi"}'`];

  async run(): Promise<AgentToolResult> {
    const { args, flags } = await this.parse(McpCall);
    const { config } = await this.loadConfig(flags);
    const toolArgs = parseJsonObject(args.arguments, 'the tool arguments');
    const result = await withConfiguredServer(config, args.server, process.cwd(), (registry) =>
      registry.callTool(args.server, args.tool, toolArgs),
    );
    if (!this.jsonEnabled()) this.log(formatToolResult(result));
    // A tool's own error result is still a failed call for scripts.
    if (result.isError) process.exitCode = 1;
    return result;
  }
}
