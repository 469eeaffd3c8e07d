/**
 * The faux script format (a public contract, documented in docs/faux.md):
 * a JSON file `{"model": {...metadata overrides}, "responses": [R, ...]}`,
 * or an ES module whose default export maps each request to an R.
 */
import { stat } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { ErrorCodes, LIMITS, XdogError, describeError, nonRegularKind, readRegularFileSync, type Message, type ToolDefinition } from '../../core/index.js';

/** One scripted assistant response. */
export const FauxResponseSchema = z
  .object({
    /** Streamed as thinking before the text. */
    thinking: z.string().optional(),
    text: z.string().optional(),
    toolCalls: z
      .array(z.object({ name: z.string().min(1), arguments: z.record(z.string(), z.unknown()), id: z.string().min(1).optional() }).strict())
      .optional(),
    /** Token usage to report; estimated (4 characters a token) when absent. */
    usage: z.object({ input: z.number().int().nonnegative(), output: z.number().int().nonnegative() }).strict().optional(),
    /** Ends the message with stopReason "error" and this message. */
    error: z.string().optional(),
    /** Waits this long (abortable) before answering. */
    delayMs: z.number().int().nonnegative().optional(),
  })
  .strict();

/** Overrides of the faux model's declared metadata. */
export const FauxModelSchema = z
  .object({
    id: z.string().min(1).optional(),
    name: z.string().optional(),
    contextWindow: z.number().int().positive().optional(),
    maxPromptTokens: z.number().int().nonnegative().optional(),
    maxOutputTokens: z.number().int().positive().optional(),
    input: z.array(z.enum(['text', 'image'])).optional(),
    images: z
      .object({
        maxCount: z.number().int().nonnegative().optional(),
        maxBytes: z.number().int().nonnegative().optional(),
        mimeTypes: z.array(z.string()).optional(),
      })
      .strict()
      .optional(),
    reasoningEfforts: z.array(z.string()).optional(),
    toolSupport: z.boolean().optional(),
  })
  .strict();

/** A JSON script. */
export const FauxScriptSchema = z.object({ model: FauxModelSchema.optional(), responses: z.array(FauxResponseSchema) }).strict();

export type FauxResponse = z.infer<typeof FauxResponseSchema>;
export type FauxModelOverrides = z.infer<typeof FauxModelSchema>;
export type FauxScript = z.infer<typeof FauxScriptSchema>;

/** What the faux model receives for one request (and what XDOG_FAUX_LOG records). */
export interface FauxRequest {
  model: string;
  systemPrompt?: string;
  messages: Message[];
  tools: ToolDefinition[];
}

/** A script function: maps one request to a response (an ES module's default export). */
export type FauxResponder = (request: FauxRequest) => FauxResponse | Promise<FauxResponse>;

/** A loaded script: a list played in order, or a function of the request. */
export type LoadedScript = { kind: 'list'; model?: FauxModelOverrides; responses: FauxResponse[] } | { kind: 'function'; model?: FauxModelOverrides; respond: FauxResponder };

function scriptError(path: string, problem: string): XdogError {
  return new XdogError(ErrorCodes.CONFIG_INVALID, `faux script ${path}: ${problem}`, { hint: 'see docs/faux.md for the script format' });
}

/** Validates a JSON script value. */
export function parseFauxScript(value: unknown, where = 'script'): FauxScript {
  const parsed = FauxScriptSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw scriptError(where, `${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

const MODULE_EXTENSIONS = new Set(['.js', '.mjs']);

/** True when `path` names an ES module script (loaded with import()). */
export function isModuleScript(path: string): boolean {
  return MODULE_EXTENSIONS.has(extname(path));
}

/** Loads a JSON script file synchronously. */
export function loadJsonScript(path: string): LoadedScript {
  const absolute = resolve(path);
  let text: string;
  try {
    text = readRegularFileSync(absolute, { maxBytes: LIMITS.fauxScriptBytes, what: 'faux script' }).toString('utf8');
  } catch (error) {
    if (XdogError.is(error)) throw error;
    throw new XdogError(ErrorCodes.NOT_FOUND, `faux script ${absolute} cannot be read: ${describeError(error)}`, {
      hint: 'set faux.script in the config or XDOG_FAUX_SCRIPT to an existing file',
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw scriptError(absolute, `not valid JSON: ${describeError(error)}`);
  }
  const script = parseFauxScript(value, absolute);
  return { kind: 'list', model: script.model, responses: script.responses };
}

/**
 * Loads an ES module script: its default export is a function of the request
 * (metadata overrides may come from a named `model` export) or a JSON-shaped script.
 */
export async function loadModuleScript(path: string): Promise<LoadedScript> {
  const absolute = resolve(path);
  let module: { default?: unknown; model?: unknown };
  try {
    // import() of a FIFO or a device would wait or read forever.
    const kind = nonRegularKind(await stat(absolute));
    if (kind) throw scriptError(absolute, `it is ${kind}, not a regular file`);
    module = await import(pathToFileURL(absolute).href);
  } catch (error) {
    if (XdogError.is(error)) throw error;
    throw scriptError(absolute, `failed to load: ${describeError(error)}`);
  }
  if (typeof module.default === 'function') {
    const model = module.model === undefined ? undefined : FauxModelSchema.safeParse(module.model);
    if (model && !model.success) throw scriptError(absolute, `model: ${model.error.issues[0]?.message ?? 'invalid'}`);
    return { kind: 'function', model: model?.data, respond: module.default as FauxResponder };
  }
  const script = parseFauxScript(module.default, absolute);
  return { kind: 'list', model: script.model, responses: script.responses };
}
