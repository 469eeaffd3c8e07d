/**
 * Which tool objects are the built-in local read-only tools (read, ls, grep,
 * find, current_time). Identity, not a name or an annotation: a third-party
 * tool called "read" is not one of them, so a read-only scope never trusts
 * what a tool says about itself.
 */
import type { AgentTool } from '../../core/index.js';

const localReadOnly = new WeakSet<AgentTool>();

/** Registers a tool built by one of this plugin's read-only factories. */
export function markReadOnly<T extends AgentTool>(tool: T): T {
  localReadOnly.add(tool);
  return tool;
}

/** True only for an instance of the built-in read, ls, grep, find or current_time tool. */
export function isLocalReadOnlyTool(tool: unknown): boolean {
  return typeof tool === 'object' && tool !== null && localReadOnly.has(tool as AgentTool);
}
