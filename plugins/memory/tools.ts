/**
 * The memory tools a group's model uses: memory_write, memory_search and
 * memory_forget. They find their group through ClawGroupToken at call time;
 * in a kernel that serves no claw group they answer a tool error saying so.
 * Errors a model can act on (a limit, an unknown id) are error results with
 * the hint; anything else fails the call as any tool failure does.
 */
import { z } from 'zod';
import { XdogError, type AgentTool, type AgentToolResult } from '../../core/index.js';
import { LIMITS } from '../../core/limits.js';
import { CLAW_SESSION_TOOL_CTX, type ClawGroupContext } from '../claw-gateway/tokens.js';
import type { MemoryEntry } from './entry.js';
import { formatMemory } from './format.js';
import { memoryIndexFor } from './memory-index.js';
import { DEFAULT_SEARCH_RESULTS, MemoryStore, type MemorySearchHit } from './memory-store.js';

export const MEMORY_TOOL_NAMES = ['memory_write', 'memory_search', 'memory_forget'] as const;

const WriteArgs = z.object({
  text: z.string().describe(`One self-contained fact, decision or preference, at most ${LIMITS.memoryEntryChars} characters.`),
  tags: z.array(z.string()).optional().describe(`Up to ${LIMITS.memoryTags} short words to find it by, such as "deploy".`),
});
const SearchArgs = z.object({
  query: z.string().describe('Words to look for; memories holding them as one phrase come first.'),
  limit: z.number().int().optional().describe(`At most this many results (default ${DEFAULT_SEARCH_RESULTS}, at most ${LIMITS.memorySearchResults}).`),
});
const ForgetArgs = z.object({ id: z.number().int().describe('The id memory_search showed (the number after #).') });

function text<T>(body: string, details?: T): AgentToolResult<T> {
  return { content: [{ type: 'text', text: body }], ...(details === undefined ? {} : { details }) };
}

/** Runs a tool body; an XdogError becomes an error result the model can act on. */
async function answer<T>(work: () => Promise<AgentToolResult<T>>): Promise<AgentToolResult<T>> {
  try {
    return await work();
  } catch (error) {
    if (!XdogError.is(error)) throw error;
    return { content: [{ type: 'text', text: `Error: ${error.message}${error.hint ? ` (${error.hint})` : ''}` }], isError: true };
  }
}

/**
 * The three memory tools over the group `group()` returns at call time
 * (undefined outside claw: the tools then answer that memory needs a claw group).
 */
export function createMemoryTools(group: () => ClawGroupContext | undefined): AgentTool[] {
  let opened: { context: ClawGroupContext; memory: MemoryStore } | undefined;
  const memoryOf = (): { context: ClawGroupContext; memory: MemoryStore } | string => {
    const context = group();
    if (!context) return 'memory needs a claw group: these tools work in a group of the claw gateway (xdog claw), not in this agent';
    if (opened?.context !== context) opened = { context, memory: new MemoryStore({ store: context.store, index: memoryIndexFor(context.dataSource), clock: context.clock }) };
    return opened;
  };
  const outsideClaw = (reason: string): AgentToolResult<never> => ({ content: [{ type: 'text', text: `Error: ${reason}` }], isError: true });

  const write: AgentTool<z.infer<typeof WriteArgs>, { entry: MemoryEntry; duplicate: boolean }> = {
    name: 'memory_write',
    description:
      "Save a fact worth knowing in later sessions of this group (decisions, preferences, where things are, what failed and why). Saved memories last across sessions; find them with memory_search. One self-contained fact per call; never save secrets.",
    parameters: WriteArgs,
    execute: (args, { toolCtx }) =>
      answer(async () => {
        const opened = memoryOf();
        if (typeof opened === 'string') return outsideClaw(opened);
        const session = toolCtx[CLAW_SESSION_TOOL_CTX];
        const result = await opened.memory.write(opened.context.name, { text: args.text, tags: args.tags, source: 'tool', sessionId: typeof session === 'string' ? session : null });
        return text(result.duplicate ? `Already saved as memory #${result.entry.id}.` : `Saved as memory #${result.entry.id}.`, result);
      }),
  };
  const search: AgentTool<z.infer<typeof SearchArgs>, { results: MemorySearchHit[] }> = {
    name: 'memory_search',
    description: "Search this group's saved memories (from this and earlier sessions) by words. Results come best first: exact phrase matches, then the most relevant.",
    parameters: SearchArgs,
    execute: (args) =>
      answer(async () => {
        const opened = memoryOf();
        if (typeof opened === 'string') return outsideClaw(opened);
        const results = await opened.memory.search(opened.context.name, args.query, args.limit);
        const body = results.length ? results.map(formatMemory).join('\n') : `No memory matches ${JSON.stringify(args.query)}.`;
        return text(body, { results });
      }),
  };
  const forget: AgentTool<z.infer<typeof ForgetArgs>, { entry: MemoryEntry }> = {
    name: 'memory_forget',
    description: 'Delete a saved memory that is wrong or no longer true, by the id memory_search showed. Save the corrected fact with memory_write.',
    parameters: ForgetArgs,
    execute: (args) =>
      answer(async () => {
        const opened = memoryOf();
        if (typeof opened === 'string') return outsideClaw(opened);
        const entry = await opened.memory.forget(opened.context.name, args.id);
        return text(`Forgot memory #${entry.id}.`, { entry });
      }),
  };
  return [write, search, forget];
}
