/**
 * What crosses the extension channel, as the host validates it: anything out
 * of these shapes is out of contract, and quarantines the extension.
 */
import { z } from 'zod';
import { LIMITS } from '../../core/limits.js';
import { SHORTCUT_PATTERN } from './shortcuts.js';

/** A public command name (`publicName`): typed as `/NAME`, so it never starts with `ext-`. */
export const PUBLIC_NAME_PATTERN = new RegExp(`^(?!ext-)[a-z][a-z0-9-]{0,${LIMITS.extensionPublicNameChars - 1}}$`);

export const REGISTRATION_KINDS = ['command', 'event', 'beforeToolCall', 'afterToolCall', 'context', 'input', 'tool', 'provider'] as const;
export type RegistrationKind = (typeof REGISTRATION_KINDS)[number];

/** The agent events an extension may follow with `on(event)`, in the order a run emits them. */
export const LIFECYCLE_EVENTS = ['agent_start', 'turn_start', 'turn_end', 'agent_end'] as const;
/** The compaction events: `session_before_compact` may veto or supply the one custom summary, `session_compact` observes a commit. */
export const COMPACTION_EVENTS = ['session_before_compact', 'session_compact'] as const;
/** Every name `on(event)` takes. */
export const EXTENSION_EVENTS = [...LIFECYCLE_EVENTS, ...COMPACTION_EVENTS] as const;

const Efforts = z.array(z.string().min(1).max(32)).max(8);
/** Vision limits: 0 means unreported (no limit declared), never "no images". */
const VisionLimitsSchema = z
  .object({
    maxPromptImages: z.number().int().nonnegative().max(10_000),
    maxPromptImageSize: z.number().int().nonnegative(),
    supportedMediaTypes: z.array(z.string().regex(/^image\/[\w.+-]{1,64}$/, 'a media type is image/SUBTYPE')).max(16),
  })
  .partial()
  .strict();
export const ModelSpecSchema = z
  .object({
    id: z.string().regex(/^[^/\s]{1,128}$/, 'a model id has no "/" or spaces'),
    name: z.string().max(256).optional(),
    contextWindow: z.number().int().positive().optional(),
    /** 0 = unreported; never over the context window. */
    maxPromptTokens: z.number().int().nonnegative().optional(),
    maxOutputTokens: z.number().int().positive().optional(),
    /** The seed's name is supportedEfforts; reasoningEfforts is the older one (give one of them). */
    supportedEfforts: Efforts.optional(),
    reasoningEfforts: Efforts.optional(),
    visionLimits: VisionLimitsSchema.optional(),
  })
  .strict()
  .refine((model) => !(model.maxPromptTokens && model.contextWindow && model.maxPromptTokens > model.contextWindow), { message: 'maxPromptTokens is at most the contextWindow' })
  .refine((model) => !(model.supportedEfforts && model.reasoningEfforts), { message: 'give supportedEfforts or reasoningEfforts, not both' });
export type WireModelSpec = z.infer<typeof ModelSpecSchema>;

export const RegisterSchema = z.discriminatedUnion('kind', [
  z.object({ handle: z.number().int(), kind: z.literal('command'), name: z.string(), meta: z.object({ description: z.string().max(1024), completes: z.boolean(), shortcut: z.string().regex(SHORTCUT_PATTERN).optional(), publicName: z.string().regex(PUBLIC_NAME_PATTERN).optional() }) }),
  z.object({ handle: z.number().int(), kind: z.literal('event'), meta: z.object({ event: z.enum(EXTENSION_EVENTS) }) }),
  z.object({ handle: z.number().int(), kind: z.enum(['beforeToolCall', 'afterToolCall', 'context', 'input']), meta: z.object({}) }),
  z.object({ handle: z.number().int(), kind: z.literal('tool'), name: z.string(), meta: z.object({ description: z.string().max(8192), parameters: z.record(z.string(), z.unknown()) }) }),
  z.object({ handle: z.number().int(), kind: z.literal('provider'), name: z.string(), meta: z.object({ models: z.array(ModelSpecSchema).min(1).max(LIMITS.extensionProviderModels) }) }),
]);
export type Registration = z.infer<typeof RegisterSchema>;

export const UnregisterSchema = z.object({ handle: z.number().int() });
export const StatusSchema = z.object({
  key: z.string().min(1).max(64),
  text: z.string().refine((text) => Buffer.byteLength(text) <= LIMITS.extensionStatusBytes, `at most ${LIMITS.extensionStatusBytes} bytes`).nullable(),
});
export const AppendEntrySchema = z.object({ kind: z.string().regex(/^[a-z0-9][\w.-]{0,63}$/i, 'an entry kind is 1-64 letters, digits, ".", "_" or "-"'), data: z.unknown() });
export const DialogSchema = z.object({
  kind: z.enum(['select', 'input', 'confirm']),
  title: z.string().max(1024),
  options: z.array(z.string().max(1024)).max(64).optional(),
  placeholder: z.string().max(1024).optional(),
  timeoutSeconds: z.number().min(LIMITS.extensionDialogMinSeconds).max(LIMITS.extensionDialogMaxSeconds),
});
/** Inspections the agent's inspector answers. */
export const AGENT_INSPECTIONS = ['model', 'contextUsage', 'activeTools', 'sessionName', 'toolInventory', 'pendingMessages'] as const;
export const InspectSchema = z.object({ what: z.enum([...AGENT_INSPECTIONS, 'commandCatalog', 'entries']) });

/** Paging of a session catalog: a continuation passes the `revision` of the page before it. */
const CatalogPaging = {
  offset: z.number().int().nonnegative().max(LIMITS.extensionSessionTraversal).optional(),
  revision: z.string().max(64).optional(),
};
export const SessionListRequestSchema = z
  .object({
    query: z.string().refine((text) => Buffer.byteLength(text) <= LIMITS.extensionSessionQueryBytes, `a query is at most ${LIMITS.extensionSessionQueryBytes} bytes`).optional(),
    ...CatalogPaging,
  })
  .strict();
export const SessionTreeRequestSchema = z
  .object({ sessionId: z.string().min(1).max(128).optional(), branchId: z.string().regex(/^\d{1,18}$/, 'a branch id is an entry id').optional(), ...CatalogPaging })
  .strict();
export type SessionListRequest = z.infer<typeof SessionListRequestSchema>;
export type SessionTreeRequest = z.infer<typeof SessionTreeRequestSchema>;
/** A catalog read: `invocation` names the command call it was made in (only interactive commands may read catalogs). */
export const CatalogSchema = z.discriminatedUnion('what', [
  z.object({ what: z.literal('sessions'), invocation: z.string().max(64).nullable(), request: SessionListRequestSchema }).strict(),
  z.object({ what: z.literal('tree'), invocation: z.string().max(64).nullable(), request: SessionTreeRequestSchema }).strict(),
]);

/** Answers of the host's `invoke` requests, by registration kind. */
export const BeforeAnswerSchema = z.union([
  z.null(),
  z.object({ block: z.literal(true), reason: z.string().min(1).max(2000) }).strict(),
  z.object({ args: z.record(z.string(), z.unknown()) }).strict(),
]);
const ContentSchema = z.array(
  z.union([
    z.object({ type: z.literal('text'), text: z.string() }).strict(),
    z.object({ type: z.literal('image'), data: z.string(), mimeType: z.string() }).strict(),
  ]),
);
export const AfterAnswerSchema = z.union([z.null(), z.object({ content: ContentSchema.optional(), isError: z.boolean().optional() }).strict()]);
export const InputAnswerSchema = z.union([
  z.null(),
  z.object({ action: z.literal('continue') }).strict(),
  z.object({ action: z.literal('transform'), text: z.string().max(LIMITS.inputTransformTextBytes) }).strict(),
  z.object({ action: z.literal('reject'), reason: z.string().min(1).max(LIMITS.inputTransformReasonBytes) }).strict(),
  z.object({ action: z.literal('handled'), feedback: z.string().min(1).max(LIMITS.inputTransformFeedbackBytes) }).strict(),
]);
/** A `session_before_compact` answer: nothing continues; the core checks a summary's limits and cut. */
export const BeforeCompactAnswerSchema = z.union([
  z.null(),
  z.object({}).strict(),
  z.object({ cancel: z.literal(true), reason: z.string().max(2000).optional() }).strict(),
  z.object({ summary: z.string(), firstKeptIndex: z.number().int().nonnegative().optional(), details: z.unknown().optional() }).strict(),
]);
export const ContextAnswerSchema = z.union([z.null(), z.array(z.record(z.string(), z.unknown()))]);
/** The tag of a rich answer on the channel (a plain string answer stays a string). */
export const RICH_RESULT_KIND = 'xdog.command-result';

/** A rich command answer (`api.result`); the host checks its parts' limits and image bytes too (command-result.ts). */
export const RichAnswerSchema = z
  .object({
    kind: z.literal(RICH_RESULT_KIND),
    text: z.string().optional(),
    image: z.object({ data: z.string(), mimeType: z.string().max(64) }).strict().optional(),
    structured: z.json().optional(),
    details: z.json().optional(),
  })
  .strict();
export const CommandAnswerSchema = z.union([z.null(), z.string().max(LIMITS.extensionCommandTextBytes), RichAnswerSchema]);

/** The content of a rich answer, without its tag (absent parts stay absent: false, 0 and null are kept). */
export function contentOf<T extends { kind?: string }>(answer: T): Omit<T, 'kind'> {
  const { kind: _kind, ...content } = answer;
  return content;
}

/**
 * What a completion callback may get besides its prefix when the caller has
 * the whole draft: the text after the command, the cursor and the token's
 * span, as Unicode code point offsets into that text.
 */
export const ArgumentContextSchema = z
  .object({
    arguments: z.string(),
    cursor: z.number().int().nonnegative(),
    start: z.number().int().nonnegative(),
    end: z.number().int().nonnegative(),
  })
  .strict();
export type ArgumentContext = z.infer<typeof ArgumentContextSchema>;
export const ToolAnswerSchema = z.string().max(1024 * 1024);
export const CompleteAnswerSchema = z.object({ items: z.array(z.string().max(1024)).max(LIMITS.extensionCompletionItems) });
export const NullAnswerSchema = z.null();

export const ProviderEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }).strict(),
  z.object({ type: z.literal('thinking'), text: z.string() }).strict(),
  z.object({ type: z.literal('tool_call'), id: z.string().min(1).max(128), name: z.string().min(1).max(128), arguments: z.record(z.string(), z.unknown()) }).strict(),
  z.object({ type: z.literal('usage'), input: z.number().int().nonnegative(), output: z.number().int().nonnegative() }).strict(),
  z.object({ type: z.literal('done') }).strict(),
  z.object({
    type: z.literal('error'),
    message: z.string().min(1).refine((text) => Buffer.byteLength(text) <= LIMITS.extensionErrorMessageBytes, `at most ${LIMITS.extensionErrorMessageBytes} bytes`),
    stopReason: z.enum(['error', 'aborted']).optional(),
  }).strict(),
]);
export type WireProviderEvent = z.infer<typeof ProviderEventSchema>;
export const StreamEventSchema = z.object({ streamId: z.number().int(), event: z.unknown() });
