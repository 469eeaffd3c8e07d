/**
 * The `claw-mcp` plugin: MCP servers for claw groups. A group's servers (the
 * ids its `mcp_servers` lists) are connected only by an explicit `mcp.connect`
 * and owned by the group: its kernel's registry starts them in the workspace,
 * every session's agent of the group gets their tools (as `<id>__<tool>`,
 * gated by allow_tools, the read-only scope and plan mode), and they end when
 * the group closes, moves to another worker or is disconnected.
 */
import { ContainerModule, definePlugin } from '../../core/index.js';
import { GatewayServiceContribution } from '../claw-gateway/tokens.js';
import { createClawMcpService } from './service.js';

export { McpNotifications, createClawMcpService, type GroupMcpTool } from './service.js';
export { readMcpPreview } from './preview-client.js';
export { groupServerIds, type GroupMcpServer } from './group-servers.js';
export type { GroupElicitation } from './group-elicitation.js';

export default definePlugin({
  name: 'claw-mcp',
  module: new ContainerModule(({ bind }) => {
    bind(GatewayServiceContribution).toConstantValue(createClawMcpService());
  }),
});
