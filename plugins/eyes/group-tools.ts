/**
 * Eyes for claw groups: a group whose config says `capabilities: [eyes]` gets
 * the Eyes tools in its kernel. The daemon is ensured at the group's first
 * Eyes call (and again after it was stopped), never when the gateway starts;
 * the tools work in the group's workspace.
 */
import type { AgentTool, Kernel } from '../../core/index.js';
import type { ClawGroupContext } from '../claw-gateway/tokens.js';
import type { EyesClient } from './client.js';
import { createEyesTools } from './tools.js';

/** The Eyes tools for the group a kernel serves, or none when its config does not select Eyes. */
export function groupEyesTools(kernel: Kernel, group: ClawGroupContext): AgentTool[] {
  const config = kernel.config.claw?.groups?.[group.name];
  if (!config?.capabilities?.includes('eyes')) return [];
  let connecting: Promise<EyesClient> | undefined;
  const client = async (): Promise<EyesClient> => {
    const current = connecting;
    if (current) {
      const connected = await current.catch(() => undefined);
      if (connected && !connected.closed) return connected;
    }
    const { ensureEyes } = await import('./client.js');
    connecting = ensureEyes({ client: `claw group ${group.name}`, allowHosts: kernel.config.eyes?.allow_hosts ?? [] });
    return connecting;
  };
  return createEyesTools({ client, workspace: group.workspace });
}
