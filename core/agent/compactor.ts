/**
 * One compaction, up to the point of adoption: plan the cut, ask the
 * `beforeCompact` taps, get the summary (a tap's, or the model's), and build
 * the new history. Nothing here changes the agent: the caller persists and
 * adopts the outcome, so a failure anywhere leaves the history as it was.
 */
import { z } from 'zod';
import type { AgentHooks, BeforeCompactResult, CompactionPreparation, CompactionReason } from '../../hooks/agent.js';
import { ErrorCodes, XdogError, describeError } from '../errors.js';
import { LIMITS, utf8Bytes } from '../limits.js';
import type { ModelStreamFn } from '../model/types.js';
import { compactionSummaryMessage, estimateTokens, planCompaction, userTurnStarts } from './compaction.js';
import type { AgentInstrumentation } from './instrumentation.js';
import type { Message } from './messages.js';
import { summarizeMessages } from './summarizer.js';
import { snapshotTaps } from './tap-dispatch.js';
import type { CompactionConfig, CompactionState } from './types.js';

/** What one compaction works on. */
export interface CompactionInput {
  messages: readonly Message[];
  /** The current compaction state (its summary is message 0). */
  previous?: CompactionState;
  keepRecentTokens: number;
  tokensBefore: number;
  contextLimit?: number;
  reason: CompactionReason;
  instructions?: string;
  hooks: AgentHooks;
  streamFn: ModelStreamFn;
  model: string;
  reasoning?: string;
  signal: AbortSignal;
  now(): number;
  /** Archives the complete history before the summary request (CompactionConfig.archive). */
  archive?: CompactionConfig['archive'];
  /** Wraps the summary request (the agent instrumentation's model-call wrapper). */
  modelCall?: AgentInstrumentation['modelCall'];
}

/** A compaction ready to persist and adopt, or why there is none. */
export type PreparedCompaction =
  | { kind: 'skip'; reason: 'too-small' | 'vetoed'; message: string }
  | {
      kind: 'ready';
      messages: Message[];
      firstKeptIndex: number;
      state: CompactionState;
      custom: boolean;
      tokensAfter: number;
    };

const AnswerSchema = z.union([
  z.object({ cancel: z.literal(true), reason: z.string().optional() }).strict(),
  z.object({ summary: z.string(), firstKeptIndex: z.number().int().optional(), details: z.unknown().optional() }).strict(),
  z.object({}).strict(),
]);

function hookFailed(message: string, hook = 'beforeCompact'): XdogError {
  return new XdogError(ErrorCodes.HOOK_FAILED, message, { hint: `fix or remove that ${hook} hook; the history was left unchanged` });
}

/** Checks a custom summary against the limits and the history's valid cuts. */
function checkCustom(tap: string, answer: { summary: string; firstKeptIndex?: number; details?: unknown }, validCuts: readonly number[]): void {
  const bytes = utf8Bytes(answer.summary);
  if (answer.summary.trim().length === 0) throw hookFailed(`beforeCompact hook "${tap}" returned an empty summary`);
  if (bytes > LIMITS.compactionSummaryBytes) throw hookFailed(`beforeCompact hook "${tap}" returned a ${bytes}-byte summary, over the limit of ${LIMITS.compactionSummaryBytes}`);
  if (answer.details !== undefined) {
    let json: string | undefined;
    try {
      json = JSON.stringify(answer.details);
    } catch (error) {
      throw hookFailed(`beforeCompact hook "${tap}" returned details that are not JSON: ${describeError(error)}`);
    }
    const size = Buffer.byteLength(json ?? '');
    if (size > LIMITS.compactionDetailsBytes) throw hookFailed(`beforeCompact hook "${tap}" returned ${size} bytes of details, over the limit of ${LIMITS.compactionDetailsBytes}`);
  }
  if (answer.firstKeptIndex !== undefined && !validCuts.includes(answer.firstKeptIndex)) {
    throw hookFailed(`beforeCompact hook "${tap}" chose firstKeptIndex ${answer.firstKeptIndex}, which is not the start of a user turn after the summarized part`);
  }
}

/** Passes the summary through the `compactionSummary` taps in order; any failure fails the compaction. */
async function rewriteSummary(hooks: AgentHooks, summary: string, preparation: CompactionPreparation): Promise<string> {
  let current = summary;
  for (const tap of snapshotTaps(hooks.compactionSummary)) {
    let next: unknown;
    try {
      next = await tap.call(current, structuredClone(preparation));
    } catch (error) {
      throw hookFailed(`compactionSummary hook "${tap.name}" failed: ${describeError(error)}`, 'compactionSummary');
    }
    if (typeof next !== 'string' || next.trim().length === 0) throw hookFailed(`compactionSummary hook "${tap.name}" returned ${typeof next === 'string' ? 'an empty summary' : 'no summary'}`, 'compactionSummary');
    const bytes = utf8Bytes(next);
    if (bytes > LIMITS.compactionSummaryBytes) throw hookFailed(`compactionSummary hook "${tap.name}" returned a ${bytes}-byte summary, over the limit of ${LIMITS.compactionSummaryBytes}`, 'compactionSummary');
    current = next;
  }
  return current;
}

type Decision = { kind: 'continue' } | { kind: 'veto'; reason?: string } | { kind: 'custom'; tap: string; summary: string; firstKeptIndex?: number; details?: unknown };

/** Asks every tap; a veto stops at once, a second summary fails closed. */
async function askTaps(hooks: AgentHooks, preparation: CompactionPreparation, validCuts: readonly number[]): Promise<Decision> {
  let custom: Extract<Decision, { kind: 'custom' }> | undefined;
  for (const tap of snapshotTaps(hooks.beforeCompact)) {
    let raw: unknown;
    try {
      raw = await tap.call(structuredClone(preparation));
    } catch (error) {
      throw hookFailed(`beforeCompact hook "${tap.name}" failed: ${describeError(error)}`);
    }
    if (raw === undefined || raw === null) continue;
    const parsed = AnswerSchema.safeParse(raw);
    if (!parsed.success) throw hookFailed(`beforeCompact hook "${tap.name}" returned an invalid answer: ${parsed.error.issues[0]?.message ?? 'unknown shape'}`);
    const answer = parsed.data as BeforeCompactResult;
    if ('cancel' in answer) return { kind: 'veto', ...(answer.reason === undefined ? {} : { reason: answer.reason }) };
    if (!('summary' in answer) || typeof answer.summary !== 'string') continue;
    if (custom) throw hookFailed(`beforeCompact hooks "${custom.tap}" and "${tap.name}" both supplied a summary; only one may`);
    const supplied = answer as { summary: string; firstKeptIndex?: number; details?: unknown };
    checkCustom(tap.name, supplied, validCuts);
    custom = { kind: 'custom', tap: tap.name, ...supplied };
  }
  return custom ?? { kind: 'continue' };
}

/** Hands the complete history to the host's archive; its failure fails the compaction before any summary is asked for. */
async function archiveHistory(archive: NonNullable<CompactionConfig['archive']>, input: CompactionInput, generation: number): Promise<void> {
  try {
    await archive({ generation, reason: input.reason, automatic: input.reason !== 'manual', messages: structuredClone(input.messages as Message[]), tokensBefore: input.tokensBefore });
  } catch (error) {
    // The archive is the host's callback: a plain error from it (a full disk, a store gone) is its failure, not xdog's.
    throw new XdogError(XdogError.is(error) ? error.code : ErrorCodes.HOOK_FAILED, `archiving the history before compaction #${generation} failed: ${describeError(error)}`, {
      cause: error,
      hint: XdogError.is(error) && error.hint ? `${error.hint}; the history was left unchanged` : 'the history was left unchanged',
    });
  }
}

/** Plans, consults the hooks and summarizes; throws XdogError on any failure (nothing has changed then). */
export async function prepareCompaction(input: CompactionInput): Promise<PreparedCompaction> {
  const { messages, previous } = input;
  const summarized = previous !== undefined;
  const plan = planCompaction(messages, { keepRecentTokens: input.keepRecentTokens, summarized });
  if (!plan) {
    return { kind: 'skip', reason: 'too-small', message: 'the history is too small to compact: it is a single turn or holds less than the recent context kept' };
  }
  const preparation: CompactionPreparation = {
    messages: messages as Message[],
    firstKeptIndex: plan.firstKeptIndex,
    originalCount: messages.length,
    tokensBefore: input.tokensBefore,
    ...(input.contextLimit === undefined ? {} : { contextLimit: input.contextLimit }),
    automatic: input.reason !== 'manual',
    reason: input.reason,
    ...(input.instructions === undefined ? {} : { instructions: input.instructions }),
    ...(previous ? { previous: previous.summary } : {}),
  };
  const validCuts = userTurnStarts(messages, plan.summarizeFrom).filter((index) => index > plan.summarizeFrom);
  const decision = await askTaps(input.hooks, preparation, validCuts);
  if (decision.kind === 'veto') return { kind: 'skip', reason: 'vetoed', message: `a beforeCompact hook vetoed the compaction${decision.reason ? `: ${decision.reason}` : ''}` };
  if (input.signal.aborted) throw new XdogError(ErrorCodes.ABORTED, 'the compaction was cancelled', { hint: 'the history was left unchanged' });
  if (input.archive) {
    await archiveHistory(input.archive, input, (previous?.count ?? 0) + 1);
    // Cancellation waited for the archive (it is never cut short), and stops here, before the summary.
    if (input.signal.aborted) throw new XdogError(ErrorCodes.ABORTED, 'the compaction was cancelled', { hint: 'the history was left unchanged (its archive was kept)' });
  }

  let summary: string;
  let details: unknown;
  let firstKeptIndex = plan.firstKeptIndex;
  if (decision.kind === 'custom') {
    summary = decision.summary;
    details = decision.details;
    firstKeptIndex = decision.firstKeptIndex ?? firstKeptIndex;
  } else {
    const result = await summarizeMessages({
      streamFn: input.streamFn,
      model: input.model,
      messages: messages.slice(plan.summarizeFrom, firstKeptIndex),
      ...(previous ? { previous: previous.summary } : {}),
      ...(input.instructions === undefined ? {} : { instructions: input.instructions }),
      ...(input.reasoning === undefined ? {} : { reasoning: input.reasoning }),
      ...(input.modelCall ? { modelCall: input.modelCall } : {}),
      signal: input.signal,
    });
    summary = result.summary;
  }
  summary = await rewriteSummary(input.hooks, summary, preparation);
  const next = [compactionSummaryMessage(summary, input.now()), ...messages.slice(firstKeptIndex)];
  return {
    kind: 'ready',
    messages: next,
    firstKeptIndex,
    state: { summary, ...(details === undefined ? {} : { details: structuredClone(details) }), count: (previous?.count ?? 0) + 1 },
    custom: decision.kind === 'custom',
    tokensAfter: estimateTokens(next),
  };
}
