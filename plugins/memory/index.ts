/**
 * The `memory` plugin: durable, searchable memory per claw group.
 *
 * - Tools for a group's model: memory_write, memory_search, memory_forget
 *   (bound only in kernels that serve a claw group; enable them per group
 *   with `enabled_tools`).
 * - A gateway service with `memory.add|search|list|forget` for clients
 *   (`xdog claw memory ...`).
 *
 * Memories live in the claw store (`claw_memories`) with a full-text index
 * behind MemoryIndex (SQLite FTS5 with bm25). Selecting the plugin starts
 * nothing; docs/automation.md ("Memory") describes it for users.
 */
import { ContainerModule, ToolContribution, definePlugin } from '../../core/index.js';
import { ClawGroupToken, GatewayServiceContribution } from '../claw-gateway/tokens.js';
import { MEMORY_TOOL_NAMES, createMemoryTools } from './tools.js';
import { createMemoryService } from './service.js';

export { checkMemoryTags, checkMemoryText, type MemoryEntry, type MemoryInput, type MemorySource } from './entry.js';
export { formatMemory } from './format.js';
export { memoryIndexFor, type MemoryHit, type MemoryIndex } from './memory-index.js';
export { DEFAULT_LIST_PAGE, DEFAULT_SEARCH_RESULTS, MemoryStore, type MemoryPage, type MemorySearchHit, type MemoryWriteResult } from './memory-store.js';
export { parseMemoryQuery, type MemoryQuery } from './query.js';
export { MEMORY_CAPABILITY, createMemoryService } from './service.js';
export { PostgresFtsIndex } from './postgres-fts-index.js';
export { SqliteFts5Index } from './sqlite-fts5-index.js';
export { MEMORY_TOOL_NAMES, createMemoryTools } from './tools.js';

export default definePlugin({
  name: 'memory',
  provides: { tools: [...MEMORY_TOOL_NAMES] },
  module: new ContainerModule(({ bind }) => {
    bind(GatewayServiceContribution).toConstantValue(createMemoryService());
  }),
  apply(kernel) {
    // A plain agent (xdog agent chat) is offered no tool that could only fail.
    if (!kernel.isBound(ClawGroupToken)) return;
    for (const tool of createMemoryTools(() => kernel.get(ClawGroupToken))) kernel.container.bind(ToolContribution).toConstantValue(tool);
  },
});
