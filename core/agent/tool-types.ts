/**
 * The tool contract. A tool's `execute` may throw: the loop turns a throw into
 * an error tool result, so the transcript stays well formed.
 */
import type { ZodType } from 'zod';
import type { ImageContent, TextContent } from './messages.js';

/** A JSON Schema object (any draft the validator supports). */
export type JsonSchema = Record<string, unknown>;

export interface AgentToolResult<TDetails = unknown> {
  content: Array<TextContent | ImageContent>;
  /** Data for the host and UIs; never sent to the model. */
  details?: TDetails;
  /** A deliberate failure that keeps its typed content. Must be a real boolean. */
  isError?: boolean;
}

export interface ToolExecuteContext {
  toolCallId: string;
  /** Aborted when the run is aborted; long-running tools must honour it. */
  signal: AbortSignal;
  /**
   * Reports partial progress (a `tool_update` event). Updates are delivered in
   * order; await the returned promise to respect the event stream's back-pressure.
   */
  onUpdate(partial: AgentToolResult): void | Promise<void>;
  /** A shallow copy of the agent's tool context, made for this call only. */
  toolCtx: Record<string, unknown>;
}

export interface AgentTool<TArgs = any, TDetails = unknown> {
  name: string;
  /** Written for the model: what the tool does and when to use it. */
  description: string;
  /** A JSON Schema object or a zod schema; arguments are validated against it before any hook sees them. */
  parameters: JsonSchema | ZodType<TArgs>;
  execute(args: TArgs, context: ToolExecuteContext): Promise<AgentToolResult<TDetails>>;
  /**
   * Given only where it is named (a claw group's `enabled_tools`): a default of "every installed
   * tool" leaves it out. For tools that spend money or reach outside, such as `generate_image`.
   */
  optIn?: boolean;
}

/** The tools an "every installed tool" default gives: all but the opt-in ones. */
export function defaultTools<T extends Pick<AgentTool, 'optIn'>>(tools: readonly T[]): T[] {
  return tools.filter((tool) => tool.optIn !== true);
}

/** What a model is told about a tool. */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: JsonSchema;
}

/**
 * A source of remote tools (MCP proxies) bound to one agent. The agent keeps
 * these apart from its local tools: they never enter a ToolRepo, and a
 * name that is both local and remote fails.
 */
export interface RemoteToolSource {
  /** The current remote tools, under their final (namespaced) names. */
  tools(): AgentTool[];
  /** Called when `tools()` changes; returns a disposer. */
  onChange?(listener: () => void): () => void;
}
