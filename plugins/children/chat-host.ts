/**
 * Children for a host that builds agents itself (`xdog agent chat`): fresh
 * SDK Agents on the parent's model access, with tools taken from the
 * parent's and never more. A read-only child gets only the built-in read
 * tools plus the read-only gate; an inheriting child gets the parent's tools
 * but never `agent` or `update_plan`, and the parent's gates are tapped in
 * by `inheritGates`. A child that inherits the parent's context starts with
 * a copy of it (seedChild).
 */
import { Agent, ErrorCodes, XdogError, buildMetadata, withArticle, zeroUsage, type AgentHooks, type AgentTool, type CompactionConfig, type Message, type ModelStreamFn } from '../../core/index.js';
import { MemoryAccessScope, tapReadOnlyGate } from '../access/index.js';
import { MemoryTodoStore, createTodoTools, renderTodos } from '../todos/index.js';
import { isLocalReadOnlyTool } from '../tools/index.js';
import { childCompaction } from './compaction.js';
import { PARENT_ONLY_TOOLS, type ChildPresets, type ChildSpec } from './contracts.js';
import type { ChildHost } from './memory-runtime.js';

export interface SdkChildHostOptions {
  streamFn: ModelStreamFn;
  /** The parent's model (children use it unless their config names another). */
  model: string;
  /** The parent's tools, as it has them now. */
  parentTools: () => readonly AgentTool[];
  presets?: ChildPresets;
  /** Taps the parent's current gates into a child that inherits them. */
  inheritGates?: (hooks: AgentHooks) => void;
  /** The automatic compaction policy children follow against their model's capacity (default none: children never compact). */
  compaction?: CompactionConfig;
  /** Told of each child agent before its first prompt (the CLI sets the parent's telemetry on it). */
  onCreated?: (agent: Agent) => void;
}

/** The system prompt of a child: who it works for, and its instructions. */
export function childPrompt(spec: ChildSpec): string {
  const lines = ['You are a child agent working for a parent agent. Do the task you are given, then answer with what you found or did; the parent reads only your last answer.'];
  if (spec.access === 'read-only') lines.push('You have read-only access: you can read, list and search files, and tell the time, but not change anything.');
  if (spec.todos) lines.push(`Your parent gave you a copy of its todo list (todo_read shows it, todo_write keeps your own; the parent's list does not change):\n${renderTodos(spec.todos)}`);
  if (spec.instructions) lines.push(spec.instructions);
  return lines.join('\n\n');
}

/** Picks the child's tools from the parent's: read-only or inherited, narrowed by `spec.tools`; with inherited todos, its own todo tools on a copy. */
export function childTools(spec: ChildSpec, parentTools: readonly AgentTool[]): AgentTool[] {
  const picked = pickParentTools(spec, parentTools);
  return spec.todos ? [...picked, ...createTodoTools(new MemoryTodoStore({ items: spec.todos }))] : picked;
}

function pickParentTools(spec: ChildSpec, parentTools: readonly AgentTool[]): AgentTool[] {
  const allowed = parentTools.filter((tool) => !PARENT_ONLY_TOOLS.includes(tool.name) && (spec.access === 'inherit' || isLocalReadOnlyTool(tool)));
  if (spec.tools === undefined) return allowed;
  const byName = new Map(allowed.map((tool) => [tool.name, tool]));
  return spec.tools.map((name) => {
    const tool = byName.get(name);
    if (!tool) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `${withArticle(spec.access)} child cannot have the tool "${name}"`, { hint: `it may have: ${[...byName.keys()].join(', ') || 'none'}` });
    return tool;
  });
}

/** Gives a fresh child Agent the parent's conversation it inherits (nothing when there is none). */
export function seedChild(agent: Agent, context: readonly Message[] | undefined): void {
  if (!context?.length) return;
  agent.restoreParts(buildMetadata({ model: agent.config.model, usage: zeroUsage(), messages: context }), context);
}

export function createSdkChildHost(options: SdkChildHostOptions): ChildHost {
  return {
    streamFn: options.streamFn,
    presets: options.presets ?? {},
    createChild(spec, streamFn, context, wiring) {
      const tools = childTools(spec, options.parentTools());
      const model = spec.model ?? options.model;
      const compaction = childCompaction(options.compaction, streamFn, model, wiring.archive);
      const agent = new Agent(streamFn, { model, systemPrompt: childPrompt(spec), ...(spec.thinking ? { thinking: spec.thinking } : {}) }, { tools, ...(compaction ? { compaction } : {}) });
      if (spec.access === 'read-only') tapReadOnlyGate(agent.hooks, new MemoryAccessScope('read-only'), () => undefined);
      else options.inheritGates?.(agent.hooks);
      seedChild(agent, context);
      options.onCreated?.(agent);
      return agent;
    },
  };
}
