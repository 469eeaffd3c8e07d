/**
 * Runs the `inputTransform` taps over one input before it is admitted to
 * history. Each tap's answer is validated exactly: undefined/null continue,
 * a bare string transforms, otherwise one of the four typed objects with no
 * extra fields. A transform feeds the next tap; reject and handled stop the
 * chain. A tap that throws or answers badly refuses admission (fail closed).
 */
import { z } from 'zod';
import type { AgentHooks, InputTransformRequest } from '../../hooks/agent.js';
import { describeError } from '../errors.js';
import { LIMITS, utf8Bytes } from '../limits.js';
import { snapshotTaps } from './tap-dispatch.js';

const ResultSchema = z.discriminatedUnion('action', [
  z.object({ action: z.literal('continue') }).strict(),
  z.object({ action: z.literal('transform'), text: z.string() }).strict(),
  z.object({ action: z.literal('reject'), reason: z.string() }).strict(),
  z.object({ action: z.literal('handled'), feedback: z.string() }).strict(),
]);

/** The decision for one input. `failed` marks a refusal caused by a broken tap rather than a deliberate reject. */
export type InputDecision =
  | { action: 'admit'; text: string }
  | { action: 'reject'; reason: string; failed: boolean }
  | { action: 'handled'; feedback: string };

function checkLimits(tap: string, result: z.infer<typeof ResultSchema>): string | undefined {
  if (result.action === 'transform' && utf8Bytes(result.text) > LIMITS.inputTransformTextBytes) {
    return `input transform "${tap}" returned ${utf8Bytes(result.text)} bytes of text, over the limit of ${LIMITS.inputTransformTextBytes}`;
  }
  if (result.action === 'reject' && utf8Bytes(result.reason) > LIMITS.inputTransformReasonBytes) {
    return `input transform "${tap}" returned a reject reason of ${utf8Bytes(result.reason)} bytes, over the limit of ${LIMITS.inputTransformReasonBytes}`;
  }
  if (result.action === 'handled') {
    const bytes = utf8Bytes(result.feedback);
    if (bytes === 0) return `input transform "${tap}" returned empty handled feedback`;
    if (bytes > LIMITS.inputTransformFeedbackBytes) {
      return `input transform "${tap}" returned ${bytes} bytes of feedback, over the limit of ${LIMITS.inputTransformFeedbackBytes}`;
    }
  }
  return undefined;
}

/** Dispatches `request` through the taps registered now. */
export async function runInputTransform(hooks: AgentHooks, request: InputTransformRequest): Promise<InputDecision> {
  let text = request.text;
  for (const tap of snapshotTaps(hooks.inputTransform)) {
    let raw: unknown;
    try {
      raw = await tap.call({ ...request, text, images: request.images.map((image) => ({ ...image })) });
    } catch (error) {
      return { action: 'reject', reason: `input transform "${tap.name}" failed: ${describeError(error)}`, failed: true };
    }
    if (raw === undefined || raw === null) continue;
    const parsed = ResultSchema.safeParse(typeof raw === 'string' ? { action: 'transform', text: raw } : raw);
    if (!parsed.success) {
      return { action: 'reject', reason: `input transform "${tap.name}" returned an invalid result: ${parsed.error.issues[0]?.message ?? 'unknown shape'}`, failed: true };
    }
    const overLimit = checkLimits(tap.name, parsed.data);
    if (overLimit) return { action: 'reject', reason: overLimit, failed: true };
    const result = parsed.data;
    if (result.action === 'transform') text = result.text;
    else if (result.action === 'reject') return { action: 'reject', reason: result.reason, failed: false };
    else if (result.action === 'handled') return { action: 'handled', feedback: result.feedback };
  }
  return { action: 'admit', text };
}
