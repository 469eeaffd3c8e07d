/**
 * Read-only inspection for extensions: what one agent knows of the current
 * run (model, active tools, context usage) and, where the host has a session
 * store, the session's name. Each answers 'unavailable' rather than invented data.
 */
import type { Agent } from '../../core/agent/agent.js';
import type { ExtensionInspector } from './host.js';

/** What a host with a session store (the claw gateway) knows of the run's session; absent elsewhere. */
export interface SessionSource {
  name(): Promise<string | null>;
  /** The session's model (`provider/model`), for when its agent was closed between runs. */
  model(): Promise<string>;
}

export function inspectorOf(agent: Agent, session?: SessionSource): ExtensionInspector {
  return {
    get closed() {
      return agent.isClosed;
    },
    async inspect(what) {
      if (what === 'sessionName') return ((await session?.name()) ?? null) || 'unavailable';
      if (what === 'model' && agent.isClosed && session) return modelName(await session.model());
      if (agent.isClosed) return 'unavailable';
      if (what === 'model') {
        const info = agent.resolveModel();
        return info ? { id: info.id, provider: info.provider, ...(info.contextWindow !== undefined && { contextWindow: info.contextWindow }) } : modelName(agent.config.model);
      }
      if (what === 'activeTools') return agent.activeTools.map((tool) => tool.name);
      if (what === 'toolInventory') {
        const active = new Set(agent.activeTools.map((tool) => tool.name));
        return agent.tools.map((tool) => ({ name: tool.name, description: tool.description, active: active.has(tool.name) }));
      }
      if (what === 'pendingMessages') return agent.hasQueuedInputs;
      const last = [...agent.messages].reverse().find((message) => message.role === 'assistant' && message.stopReason !== 'error');
      if (!last || last.role !== 'assistant') return 'unavailable';
      const tokens = last.usage.input + last.usage.output + last.usage.cacheRead + last.usage.cacheWrite;
      const window = agent.resolveModel()?.contextWindow;
      return { source: 'last-response', tokens, ...(window && { contextWindow: window, percent: (tokens / window) * 100 }) };
    },
  };
}

/** A model without metadata: its qualified name (`provider/model`) is still real data. */
function modelName(qualified: string): { id: string; provider: string } | 'unavailable' {
  const slash = qualified.indexOf('/');
  return slash > 0 ? { id: qualified.slice(slash + 1), provider: qualified.slice(0, slash) } : 'unavailable';
}
