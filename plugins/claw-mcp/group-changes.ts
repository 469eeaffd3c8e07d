/**
 * What a group's connected servers announce: a `tools/list_changed` marks the
 * server stale, is announced (`mcp.changed` with `what: "tools"`) and, when
 * the server's entry sets `refresh_on_change: true` (opt-in), refreshes its
 * tools as soon as the group is idle (a refresh mid-turn would make the
 * running turn's proxies stale), so the group's agents see the new set at
 * their next turn.
 * Resource and prompt list changes and `resources/updated` (for resources a
 * client followed with `mcp.subscribe`) are announced for clients to re-read;
 * nothing is fetched for them.
 */
import { describeError, type XdogConfig } from '../../core/index.js';
import type { GroupRuntime } from '../claw-gateway/tokens.js';
import type { McpRegistry, McpServerNotice } from '../mcp/index.js';

/** What `mcp.changed` says changed. */
export type McpChange = 'tools' | 'resources' | 'prompts' | 'resource';

const KINDS: Record<string, McpChange> = {
  'notifications/tools/list_changed': 'tools',
  'notifications/resources/list_changed': 'resources',
  'notifications/prompts/list_changed': 'prompts',
  'notifications/resources/updated': 'resource',
};

export interface ChangeHost {
  config(): XdogConfig;
  publish(group: string, params: Record<string, unknown>): void;
  log(line: string): void;
}

/** Follows one group's registry; `retry` is called after each run of the group ends; `stop` ends it. */
export function followChanges(runtime: GroupRuntime, registry: McpRegistry, host: ChangeHost): { retry(): void; stop(): void } {
  const waiting = new Set<string>();
  let stopped = false;
  const refresh = async (server: string): Promise<void> => {
    if (stopped || !waiting.has(server) || runtime.busy) return;
    if (registry.status(server)[0]?.state !== 'connected') return void waiting.delete(server);
    try {
      // Not a control: it must never make a person's control wait or fail as busy. Only the idle check
      // keeps it off a running turn (whose calls a refresh would make stale).
      const status = await registry.refresh(server);
      waiting.delete(server);
      host.publish(runtime.name, { group: runtime.name, server, state: status.state, what: 'tools', refreshed: true, tools: status.tools });
    } catch (error) {
      waiting.delete(server);
      host.log(`group ${runtime.name}: MCP server ${server} announced new tools, but the refresh failed: ${describeError(error)}`);
    }
  };
  const stopNotices = registry.onNotice((notice: McpServerNotice) => {
    const what = KINDS[notice.method];
    if (!what || stopped) return;
    const uri = typeof notice.params?.uri === 'string' ? notice.params.uri : undefined;
    host.publish(runtime.name, { group: runtime.name, server: notice.server, state: registry.status(notice.server)[0]?.state, what, stale: what === 'tools', ...(uri && what === 'resource' ? { uri } : {}) });
    if (what === 'tools' && host.config().mcp_servers?.[notice.server]?.refresh_on_change === true) {
      waiting.add(notice.server);
      // After the notice's own handler returned (the connection may still be in its handshake's tail).
      setImmediate(() => void refresh(notice.server));
    }
  });
  return {
    retry: () => {
      for (const server of waiting) setImmediate(() => void refresh(server));
    },
    stop: () => {
      stopped = true;
      stopNotices();
    },
  };
}
