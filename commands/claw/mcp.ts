import { Args } from '@oclif/core';
import { ErrorCodes, XdogError } from '../../core/errors.js';
import { readMcpPreview } from '../../plugins/claw-mcp/preview-client.js';
import type { GroupMcpServer, GroupMcpTool } from '../../plugins/claw-mcp/index.js';
import { formatDocument, parseJsonObject, type McpDocument } from '../../plugins/mcp/index.js';
import { XdogCommand } from '../base-command.js';
import type { GatewayConnection } from '../../plugins/claw-gateway/index.js';
import { expectFlag, expectedSession, groupFlag, withGateway } from './_lib/gateway.js';

type McpAnswer = GroupMcpServer[] | GroupMcpServer | GroupMcpTool[] | McpDocument;

export default class ClawMcp extends XdogCommand {
  static override summary = "List, connect, refresh or disconnect a group's MCP servers, list their tools, or preview a resource or prompt";
  static override description =
    "A group may connect the servers its claw.groups.G.mcp_servers lists. Nothing starts until you connect one: a stdio server then runs in the group's workspace, " +
    "its tools reach every session of the group at the next turn (as SERVER__TOOL, called only when the server has allow_tools: true), and it ends (its process group killed) " +
    'when you disconnect it, the gateway stops or the group moves to another worker. Connect, refresh and disconnect need an idle group. ' +
    'read SERVER URI and prompt SERVER NAME [JSON] show an inert preview (nothing reaches a model), read in chunks and checked against its SHA-256.';
  static override enableJsonFlag = true;
  static override args = {
    action: Args.string({ description: 'list, connect, refresh, disconnect, tools, read or prompt', options: ['list', 'connect', 'refresh', 'disconnect', 'tools', 'read', 'prompt'], default: 'list' }),
    server: Args.string({ description: 'the server id (from the group\'s mcp_servers)' }),
    target: Args.string({ description: 'read: the resource URI; prompt: the prompt name' }),
    arguments: Args.string({ description: 'prompt: its arguments as a JSON object of strings' }),
  };
  static override flags = { group: groupFlag, expect: expectFlag };
  static override examples = [
    '<%= config.bin %> claw mcp list',
    '<%= config.bin %> claw mcp connect files',
    '<%= config.bin %> claw mcp tools files --json',
    '<%= config.bin %> claw mcp disconnect files --group work',
    '<%= config.bin %> claw mcp read everything demo://resource/dynamic/text/1',
    `<%= config.bin %> claw mcp prompt everything args-prompt '{"city":"Paris"}'`,
  ];

  async run(): Promise<McpAnswer> {
    const { args, flags } = await this.parse(ClawMcp);
    const server = args.server;
    if (args.action !== 'list' && args.action !== 'tools' && server === undefined) {
      throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `claw mcp ${args.action} needs a server id`, { hint: 'xdog claw mcp list shows the group\'s servers' });
    }
    const answer = await withGateway(async (gateway): Promise<McpAnswer> => {
      if (!gateway.hello.capabilities.includes('mcp:1')) {
        throw new XdogError(ErrorCodes.UNSUPPORTED, 'the running gateway has no MCP methods', { hint: 'restart it with this version of xdog (xdog claw gateway stop, then start)' });
      }
      if (args.action === 'list') return gateway.callService('mcp.list', { group: flags.group });
      if (args.action === 'tools') return gateway.callService('mcp.tools', { group: flags.group, ...(server === undefined ? {} : { server }) });
      if (args.action === 'read' || args.action === 'prompt') return preview(gateway, args.action, flags.group, server!, args.target, args.arguments);
      const expectedSessionId = await expectedSession(gateway, flags.group, flags.expect);
      return gateway.callService(`mcp.${args.action}`, { group: flags.group, server, expectedSessionId });
    });
    if (!this.jsonEnabled()) this.log(render(args.action, answer));
    return answer;
  }
}

function serverLine(status: GroupMcpServer): string {
  const parts = [status.id, status.state, status.transport, status.target, `tools: ${status.tools}`, `allow_tools: ${status.allowTools}`];
  if (status.server) parts.push(`server: ${status.server.name} ${status.server.version}`);
  if (status.pid !== undefined) parts.push(`pid: ${status.pid}`);
  if (status.envNames.length) parts.push(`env: ${status.envNames.join(', ')}`);
  if (status.error) parts.push(`error: ${status.error}`);
  return parts.join('  ');
}

/** A resource or prompt preview, read in verified chunks (plugins/claw-mcp/preview-client.ts). */
function preview(gateway: GatewayConnection, action: 'read' | 'prompt', group: string | undefined, server: string, target: string | undefined, json: string | undefined): Promise<McpDocument> {
  if (target === undefined) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `claw mcp ${action} needs ${action === 'read' ? 'a resource URI' : 'a prompt name'}`, { hint: `xdog claw mcp ${action === 'read' ? 'read SERVER URI' : "prompt SERVER NAME '{\"arg\":\"value\"}'"}` });
  if (action === 'read') return readMcpPreview(gateway.callService, 'mcp.read', { group, server, uri: target });
  return readMcpPreview(gateway.callService, 'mcp.prompt', { group, server, name: target, arguments: parseJsonObject(json, 'the prompt arguments') });
}

function render(action: string, answer: McpAnswer): string {
  if (action === 'read' || action === 'prompt') return formatDocument(answer as McpDocument);
  if (action === 'list') {
    const servers = answer as GroupMcpServer[];
    return servers.length ? servers.map(serverLine).join('\n') : "this group lists no MCP servers (add ids under claw.groups.G.mcp_servers; see docs/mcp.md)";
  }
  if (action === 'tools') {
    const tools = answer as GroupMcpTool[];
    if (!tools.length) return 'no MCP tools (connect a server first: xdog claw mcp connect SERVER)';
    return tools.map((tool) => `${tool.alias}  ${tool.allowed ? 'allowed' : 'blocked (allow_tools is off)'}${tool.readOnly ? '  read-only' : ''}  ${tool.description.split('\n')[0]}`).join('\n');
  }
  const status = answer as GroupMcpServer;
  return `${action === 'disconnect' ? 'disconnected' : action === 'refresh' ? 'refreshed' : 'connected'}: ${serverLine(status)}`;
}
