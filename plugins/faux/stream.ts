/**
 * The faux model: plays scripted responses as a real ModelStreamFn would
 * stream them (start, thinking/text deltas, tool calls, usage, done or
 * error), honours the abort signal, declares metadata a script can override,
 * and records every request.
 */
import { randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import {
  ErrorCodes,
  LIMITS,
  XdogError,
  describeError,
  type AssistantMessage,
  type AssistantStreamEvent,
  type ModelContext,
  type ModelInfo,
  type ModelStreamFn,
  type ModelStreamOptions,
  type ToolCall,
} from '../../core/index.js';
import { FauxResponseSchema, isModuleScript, loadJsonScript, loadModuleScript, parseFauxScript, type FauxModelOverrides, type FauxRequest, type FauxResponder, type FauxResponse, type FauxScript, type LoadedScript } from './script.js';

/** What the faux model declares unless a script overrides it. */
export const FAUX_DEFAULT_MODEL: Omit<ModelInfo, 'id'> = Object.freeze({
  provider: 'faux',
  name: 'Faux scripted model',
  contextWindow: 200_000,
  maxOutputTokens: 32_000,
  input: ['text', 'image'] as Array<'text' | 'image'>,
  images: { maxCount: 16, maxBytes: 20 * 1024 * 1024, mimeTypes: ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] },
  reasoningEfforts: ['low', 'medium', 'high'],
  toolSupport: true,
});

/** How to build a faux stream function. Give one of `script`, `responses`. */
export interface FauxOptions {
  /** A script file (JSON, or an ES module), or a parsed JSON script. */
  script?: string | FauxScript;
  /** Responses played in order, or a function of the request. */
  responses?: FauxResponse[] | FauxResponder;
  /** Metadata overrides (merged over the script's own). */
  model?: FauxModelOverrides;
  /** Appends every request to this file as one JSON line. */
  log?: string;
  /** Keep the newest LIMITS.fauxRecordedRequests requests in `requests` (default true; the kernel's provider and benchmarks turn it off). */
  record?: boolean;
}

/** A faux ModelStreamFn plus what it saw. */
export interface FauxStreamFn extends ModelStreamFn {
  /** The newest LIMITS.fauxRecordedRequests requests received, oldest first (none with `record: false`). */
  readonly requests: FauxRequest[];
  /** How many requests were received. */
  readonly callCount: number;
}

function bareId(model: string): string {
  return model.startsWith('faux/') ? model.slice('faux/'.length) : model;
}

/** A rough token count: four characters a token. */
function estimateTokens(chars: number): number {
  return Math.ceil(chars / 4);
}

function contextChars(context: ModelContext): number {
  let chars = context.systemPrompt?.length ?? 0;
  for (const message of context.messages) {
    if (typeof message.content === 'string') chars += message.content.length;
    else for (const part of message.content) chars += part.type === 'text' ? part.text.length : part.type === 'thinking' ? part.thinking.length : 0;
  }
  return chars;
}

/** Splits text into word-sized deltas, as a real stream would. */
function chunks(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Creates a faux model. Inert: a script file is read at the first request. */
export function createFauxStreamFn(options: FauxOptions = {}): FauxStreamFn {
  // Loaded at first use (a request or a metadata lookup), never at construction.
  let loaded: LoadedScript | undefined;
  let loading: Promise<LoadedScript> | undefined;
  const loadSync = (): LoadedScript | undefined => {
    if (loaded) return loaded;
    if (typeof options.script === 'string') {
      if (isModuleScript(options.script)) return undefined;
      loaded = loadJsonScript(options.script);
    } else if (options.script) {
      const script = parseFauxScript(options.script);
      loaded = { kind: 'list', model: script.model, responses: script.responses };
    } else if (typeof options.responses === 'function') {
      loaded = { kind: 'function', respond: options.responses };
    } else if (options.responses) {
      loaded = { kind: 'list', responses: options.responses.map((response) => FauxResponseSchema.parse(response)) };
    } else {
      throw new XdogError(ErrorCodes.CONFIG_NOT_FOUND, 'no faux script is configured', {
        hint: 'set faux.script in the config or XDOG_FAUX_SCRIPT (see docs/faux.md)',
      });
    }
    return loaded;
  };
  const load = async (): Promise<LoadedScript> => {
    const now = loadSync();
    if (now) return now;
    loading ??= loadModuleScript(options.script as string).then((script) => (loaded = script));
    return loading;
  };
  let played = 0;
  const requests: FauxRequest[] = [];
  let callCount = 0;
  // Default tool-call ids carry a tag of this stream function: ids from a restarted process never repeat earlier ones.
  const streamTag = randomBytes(4).toString('hex');

  const scriptModel = (): FauxModelOverrides | undefined => {
    try {
      return loadSync()?.model;
    } catch {
      return undefined; // the request itself reports a broken script
    }
  };
  const resolveModel = (model: string): ModelInfo => {
    const overrides = scriptModel();
    const merged = { ...overrides, ...options.model };
    return {
      ...FAUX_DEFAULT_MODEL,
      id: bareId(model),
      ...merged,
      images: { ...FAUX_DEFAULT_MODEL.images, ...overrides?.images, ...options.model?.images },
    } as ModelInfo;
  };

  async function nextResponse(request: FauxRequest): Promise<FauxResponse> {
    const script = await load();
    if (script.kind === 'function') {
      const answer = await script.respond(request);
      const parsed = FauxResponseSchema.safeParse(answer);
      if (!parsed.success) return { error: `faux script returned an invalid response: ${parsed.error.issues[0]?.message ?? 'bad shape'}` };
      return parsed.data;
    }
    if (played >= script.responses.length) return { error: `faux script exhausted: all ${script.responses.length} responses were played` };
    return script.responses[played++]!;
  }

  async function* stream(model: string, context: ModelContext, streamOptions: ModelStreamOptions): AsyncGenerator<AssistantStreamEvent> {
    const signal = streamOptions.signal;
    const request: FauxRequest = {
      model,
      ...(context.systemPrompt === undefined ? {} : { systemPrompt: context.systemPrompt }),
      // A copy: the record, the log and a script's responder may keep it, and the agent's history grows after this request.
      messages: [...context.messages],
      tools: context.tools,
    };
    callCount++;
    if (options.record !== false) {
      // A ring: a long-lived stream function must not keep every request (each holds the whole history so far).
      requests.push(request);
      if (requests.length > LIMITS.fauxRecordedRequests) requests.shift();
    }
    const partial: AssistantMessage = {
      role: 'assistant',
      content: [],
      model,
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      stopReason: 'stop',
      timestamp: Date.now(),
    };
    const fail = (stopReason: 'error' | 'aborted', errorMessage: string): AssistantStreamEvent => ({
      type: 'error',
      message: { ...partial, content: [...partial.content], stopReason, errorMessage },
    });
    let response: FauxResponse;
    try {
      if (options.log) appendFileSync(options.log, `${JSON.stringify(request)}\n`);
      response = await nextResponse(request);
    } catch (error) {
      // A stream error is one string, so the hint travels in it (as providers' auth hints do).
      const hint = XdogError.is(error) && error.hint ? `; ${error.hint}` : '';
      yield fail('error', `faux: ${describeError(error)}${hint}`);
      return;
    }
    if (response.delayMs) await sleep(response.delayMs, signal);
    if (signal?.aborted) return yield fail('aborted', 'the request was aborted');
    yield { type: 'start', partial };
    if (response.thinking !== undefined) {
      const part = { type: 'thinking' as const, thinking: '' };
      partial.content.push(part);
      for (const delta of chunks(response.thinking)) {
        if (signal?.aborted) return yield fail('aborted', 'the request was aborted');
        part.thinking += delta;
        yield { type: 'thinking_delta', delta, partial };
      }
    }
    if (response.text !== undefined) {
      const part = { type: 'text' as const, text: '' };
      partial.content.push(part);
      for (const delta of chunks(response.text)) {
        if (signal?.aborted) return yield fail('aborted', 'the request was aborted');
        part.text += delta;
        yield { type: 'text_delta', delta, partial };
      }
    }
    if (response.error !== undefined) return yield fail('error', response.error);
    for (const call of response.toolCalls ?? []) {
      if (signal?.aborted) return yield fail('aborted', 'the request was aborted');
      const part: ToolCall = { type: 'toolCall', id: call.id ?? `faux-call-${streamTag}-${callCount}-${partial.content.length}`, name: call.name, arguments: call.arguments };
      partial.content.push(part);
      yield { type: 'toolcall_delta', delta: JSON.stringify(call.arguments), partial };
      yield { type: 'toolcall_end', partial };
    }
    const outputChars = (response.thinking?.length ?? 0) + (response.text?.length ?? 0) + JSON.stringify(response.toolCalls ?? []).length;
    const usage = response.usage ?? { input: estimateTokens(contextChars(context)), output: estimateTokens(outputChars) };
    yield {
      type: 'done',
      message: {
        ...partial,
        content: [...partial.content],
        usage: { input: usage.input, output: usage.output, cacheRead: 0, cacheWrite: 0 },
        stopReason: response.toolCalls?.length ? 'toolUse' : 'stop',
      },
    };
  }

  const fn = ((model: string, context: ModelContext, streamOptions: ModelStreamOptions) => stream(model, context, streamOptions)) as unknown as FauxStreamFn;
  Object.defineProperties(fn, {
    requests: { value: requests, enumerable: true },
    callCount: { get: () => callCount, enumerable: true },
    resolveModel: { value: resolveModel, enumerable: true },
    models: { value: () => [resolveModel(options.model?.id ?? scriptModel()?.id ?? 'scripted')], enumerable: true },
  });
  return fn;
}
