/**
 * The memory flush before a compaction: one silent turn on a copy of the
 * conversation, whose only tool is `memory_write`, asking the model to save
 * what must outlive the summary. Silent means it is not part of the session:
 * its messages are not stored or relayed (the memory rows it writes are the
 * record), so the compaction that follows sees the same history. The copy is
 * built by the kernel, so plugin policy taps (`beforeToolCall`) still apply.
 * It is best effort: the caller compacts whatever happens here.
 *
 * The flush's own tool is marked (`isMemoryFlushTool`) so that the plan gate,
 * which holds a planning session to reading, still lets it save: the seed keeps
 * the managed flush available in plan mode while every other host gate
 * (read-only scope, allow/deny rules, approvals) applies as usual.
 */
import { LIMITS } from '../../core/limits.js';
import type { Agent, AgentTool, Kernel, ModelStreamFn, Usage } from '../../core/index.js';

/** The tool objects flush turns run with (a copy per flush, so the ordinary memory_write stays unmarked). */
const flushTools = new WeakSet<AgentTool>();

/** True for the memory_write of a pre-compaction flush (the plan gate lets it through). */
export function isMemoryFlushTool(tool: AgentTool): boolean {
  return flushTools.has(tool);
}

/** The system input of the flush turn (labelled, so a transcript reader can tell it from a person's words). */
export const MEMORY_FLUSH_PROMPT =
  '[system: memory flush before compaction] The older part of this conversation is about to be replaced by a summary. ' +
  'Save the durable facts worth keeping beyond it (decisions, preferences, names, paths, open tasks) with memory_write, ' +
  'one fact per call, only what is not already saved. Reply with one short line when done; if there is nothing to save, just say so.';

export interface MemoryFlushInput {
  kernel: Kernel;
  streamFn: ModelStreamFn;
  /** The live agent; it is only read (dumped), never changed. */
  source: Agent;
  tool: AgentTool;
  systemPrompt?: string;
  /** Cancels the flush (the compaction was cancelled). */
  signal?: AbortSignal;
}

export interface MemoryFlushOutcome {
  status: string;
  /** memory_write calls that saved their fact. */
  saved: number;
  /** Why each other memory_write call saved nothing (blocked by a policy, or failed), in call order. */
  refused: string[];
  /** Usage of each model call (for the ledger). */
  usage: Usage[];
}

/** The gateway log's words for a flush: what was saved, and what was refused and why. */
export function describeMemoryFlush(outcome: MemoryFlushOutcome): string {
  const saved = `${outcome.saved} memory_write call${outcome.saved === 1 ? '' : 's'} saved`;
  if (outcome.refused.length === 0) return `memory flush ${outcome.status}: ${saved}`;
  const reasons = [...new Set(outcome.refused)].map((reason) => reason.replace(/\s+/g, ' ').slice(0, 200)).join('; ');
  return `memory flush ${outcome.status}: ${saved}, ${outcome.refused.length} refused or failed (${reasons})`;
}

/** Runs the flush turn; throws only on a misuse (the copy could not be built). */
export async function runMemoryFlush(input: MemoryFlushInput): Promise<MemoryFlushOutcome> {
  const { source } = input;
  const tool: AgentTool = { ...input.tool };
  flushTools.add(tool);
  const copy = input.kernel.createAgent(
    input.streamFn,
    { model: source.config.model, ...(input.systemPrompt === undefined ? {} : { systemPrompt: input.systemPrompt }), ...(source.config.thinking === undefined ? {} : { thinking: source.config.thinking }) },
    { tools: [tool] },
  );
  try {
    copy.restoreParts(source.dumpMetadata(), source.messages, { allowedModels: [source.config.model] });
    let turns = 0;
    copy.subscribe((event) => {
      // A model that keeps calling tools is stopped: the flush must not hold the group for long.
      if (event.type === 'turn_end' && ++turns >= LIMITS.clawMemoryFlushTurns) copy.abort();
    });
    const stop = () => copy.abort();
    input.signal?.addEventListener('abort', stop, { once: true });
    const stream = copy.prompt(MEMORY_FLUSH_PROMPT);
    if (input.signal?.aborted) copy.abort();
    const result = await stream.result().finally(() => input.signal?.removeEventListener('abort', stop));
    const usage: Usage[] = [];
    let saved = 0;
    const refused: string[] = [];
    for (const message of result.newMessages) {
      if (message.role === 'assistant') usage.push(message.usage);
      if (message.role !== 'toolResult' || message.toolName !== input.tool.name) continue;
      // A blocked call (a policy tap's veto) and a failed one both end as an error result: nothing was saved.
      if (message.isError) refused.push(message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join(' ') || 'no reason given');
      else saved++;
    }
    return { status: result.status, saved, refused, usage };
  } finally {
    await copy.close();
  }
}
