/**
 * The child host of a claw group: children are built by the group's kernel,
 * so every gate it taps into its agents (read-only scope, plan mode,
 * extension policy) holds for them as it holds for the parent; their tools
 * come from the group's (never more, never `agent` or `update_plan`); a
 * read-only child gets the read-only gate on top.
 */
import type { AgentTool, Kernel, ModelStreamFn } from '../../core/index.js';
import { MemoryAccessScope, tapReadOnlyGate } from '../access/index.js';
import { childPrompt, childTools, seedChild } from './chat-host.js';
import type { ChildPresets, ChildSpec } from './contracts.js';
import type { ChildHost } from './memory-runtime.js';

export interface GroupChildHostOptions {
  /** The group's kernel (its gates). */
  kernel: Kernel;
  /** The group's model access. */
  streamFn: ModelStreamFn;
  /** The group's tools as its agent has them now. */
  tools(): readonly AgentTool[];
  /** The qualified model a child runs on (its own, else the group's). */
  model(spec: ChildSpec): string;
  presets: ChildPresets;
}

export function createGroupChildHost(options: GroupChildHostOptions): ChildHost {
  return {
    streamFn: options.streamFn,
    presets: options.presets,
    createChild(spec, streamFn, context) {
      const agent = options.kernel.createAgent(streamFn, { model: options.model(spec), systemPrompt: childPrompt(spec), ...(spec.thinking ? { thinking: spec.thinking } : {}) }, { tools: childTools(spec, options.tools()) });
      if (spec.access === 'read-only') tapReadOnlyGate(agent.hooks, new MemoryAccessScope('read-only'), () => undefined);
      try {
        seedChild(agent, context);
      } catch (error) {
        void agent.close();
        throw error;
      }
      return agent;
    },
  };
}
