/**
 * The child host of a claw group: children are built by the group's kernel,
 * so every gate it taps into its agents (read-only scope, plan mode,
 * extension policy) holds for them as it holds for the parent; their tools
 * come from the group's (never more, never `agent` or `update_plan`); a
 * read-only child gets the read-only gate on top. They compact by the
 * group's policy when their model's capacity is known (compaction.ts).
 */
import type { AgentTool, CompactionConfig, Kernel, ModelStreamFn } from '../../core/index.js';
import { MemoryAccessScope, tapReadOnlyGate } from '../access/index.js';
import { childPrompt, childTools, seedChild } from './chat-host.js';
import { childCompaction } from './compaction.js';
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
  /** The group's automatic compaction policy (its `compaction` settings); children compact by it against their model's capacity. */
  compaction?(): CompactionConfig;
}

export function createGroupChildHost(options: GroupChildHostOptions): ChildHost {
  return {
    streamFn: options.streamFn,
    presets: options.presets,
    createChild(spec, streamFn, context, wiring) {
      const model = options.model(spec);
      const compaction = childCompaction(options.compaction?.(), streamFn, model, wiring.archive);
      const agent = options.kernel.createAgent(streamFn, { model, systemPrompt: childPrompt(spec), ...(spec.thinking ? { thinking: spec.thinking } : {}) }, { tools: childTools(spec, options.tools()), ...(compaction ? { compaction } : {}) });
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
