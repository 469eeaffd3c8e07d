/**
 * Conversation data: plain, JSON-serialisable messages validated by zod at
 * every boundary (snapshots, gateway, extensions). Roles: user, assistant,
 * toolResult. Content parts: text, image, thinking, toolCall.
 */
import { z } from 'zod';

export const TextContentSchema = z.object({ type: z.literal('text'), text: z.string() }).strict();
export const ImageContentSchema = z
  .object({ type: z.literal('image'), data: z.string(), mimeType: z.string().min(1) })
  .strict();
export const ThinkingContentSchema = z
  .object({
    type: z.literal('thinking'),
    thinking: z.string(),
    signature: z.string().optional(),
    /** Thinking the vendor encrypted (Anthropic `redacted_thinking`): `thinking` is empty and `signature` holds the opaque data, sent back as is. */
    redacted: z.literal(true).optional(),
  })
  .strict();
export const ToolCallSchema = z
  .object({
    type: z.literal('toolCall'),
    id: z.string().min(1),
    name: z.string().min(1),
    arguments: z.record(z.string(), z.unknown()),
  })
  .strict();

export const UsageSchema = z
  .object({
    input: z.number().int().nonnegative(),
    output: z.number().int().nonnegative(),
    cacheRead: z.number().int().nonnegative().default(0),
    cacheWrite: z.number().int().nonnegative().default(0),
  })
  .strict();

export const StopReasonSchema = z.enum(['stop', 'length', 'toolUse', 'error', 'aborted']);

export const UserMessageSchema = z
  .object({
    role: z.literal('user'),
    content: z.union([z.string(), z.array(z.union([TextContentSchema, ImageContentSchema]))]),
    timestamp: z.number(),
  })
  .strict();

export const AssistantMessageSchema = z
  .object({
    role: z.literal('assistant'),
    content: z.array(z.union([TextContentSchema, ThinkingContentSchema, ToolCallSchema])),
    model: z.string(),
    usage: UsageSchema,
    stopReason: StopReasonSchema,
    errorMessage: z.string().optional(),
    timestamp: z.number(),
  })
  .strict();

export const ToolResultMessageSchema = z
  .object({
    role: z.literal('toolResult'),
    toolCallId: z.string().min(1),
    toolName: z.string().min(1),
    content: z.array(z.union([TextContentSchema, ImageContentSchema])),
    details: z.unknown().optional(),
    isError: z.boolean(),
    timestamp: z.number(),
  })
  .strict();

export const MessageSchema = z.discriminatedUnion('role', [
  UserMessageSchema,
  AssistantMessageSchema,
  ToolResultMessageSchema,
]);

export type TextContent = z.infer<typeof TextContentSchema>;
export type ImageContent = z.infer<typeof ImageContentSchema>;
export type ThinkingContent = z.infer<typeof ThinkingContentSchema>;
export type ToolCall = z.infer<typeof ToolCallSchema>;
export type Usage = z.infer<typeof UsageSchema>;
export type StopReason = z.infer<typeof StopReasonSchema>;
export type UserMessage = z.infer<typeof UserMessageSchema>;
export type AssistantMessage = z.infer<typeof AssistantMessageSchema>;
export type ToolResultMessage = z.infer<typeof ToolResultMessageSchema>;
export type Message = z.infer<typeof MessageSchema>;

/** An empty usage record. */
export function zeroUsage(): Usage {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
}
