/** Validation of entry payloads at the store's boundary: on the way in (checkEntryInput) and on the way back (checkStoredPayload). */
import { z } from 'zod';
import { ErrorCodes, MessageSchema, XdogError } from '../../core/index.js';
import { messagePayloadFits } from './message-shape.js';
import type { EntryInput, EntryKind } from './types.js';

const entryId = z.number().int().positive();

const PAYLOADS: Record<EntryKind, z.ZodType> = {
  message: z
    .object({
      message: MessageSchema,
      source: z.object({ kind: z.literal('system'), origin: z.string().min(1).max(32), id: z.string().min(1).max(128), name: z.string().min(1).max(256).optional() }).strict().optional(),
    })
    .strict(),
  compaction: z
    .object({
      summary: z.string(),
      firstKeptEntryId: entryId.nullable(),
      tokensBefore: z.number().int().nonnegative().optional(),
      tokensAfter: z.number().int().nonnegative().optional(),
      details: z.unknown().optional(),
      recoveryEntryId: entryId.optional(),
    })
    .strict(),
  branch_summary: z.object({ fromEntryId: entryId, summary: z.string() }).strict(),
  model_change: z.object({ model: z.string().min(1) }).strict(),
  thinking_change: z.object({ thinking: z.string().min(1).nullable() }).strict(),
  label: z.object({ targetEntryId: entryId, label: z.string().nullable() }).strict(),
  custom: z.object({ type: z.string().min(1), data: z.unknown() }).strict(),
};

/** The zod schema of a kind's payload (undefined for an unknown kind): what the store checks on the way in, and decides on the way back. */
export function payloadSchema(kind: string): z.ZodType | undefined {
  return PAYLOADS[kind as EntryKind];
}

/** Returns the entry with its payload validated; INVALID_ARGUMENT names the entry's position and the problem. */
export function checkEntryInput(entry: EntryInput, position: number): EntryInput {
  const schema = PAYLOADS[entry?.kind as EntryKind];
  if (!schema) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `entry ${position + 1}: unknown kind ${JSON.stringify(entry?.kind)}`);
  const parsed = schema.safeParse(entry.payload);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `entry ${position + 1} (${entry.kind}): ${issue.path.join('.') || 'payload'}: ${issue.message}`);
  }
  return { kind: entry.kind, payload: parsed.data } as EntryInput;
}

/** Why a payload read back from the store does not fit its kind (undefined when it does). */
export function checkStoredPayload(kind: string, payload: unknown): string | undefined {
  // The common case of a long session's read, without a zod parse per row; zod decides anything else.
  if (kind === 'message' && messagePayloadFits(payload)) return undefined;
  const schema = payloadSchema(kind);
  if (!schema) return `has an unknown kind ${JSON.stringify(kind)}`;
  const parsed = schema.safeParse(payload);
  if (parsed.success) return undefined;
  const issue = parsed.error.issues[0]!;
  return `does not fit its kind (${issue.path.join('.') || 'payload'}: ${issue.message})`;
}
