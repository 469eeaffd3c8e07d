/**
 * What a server may ask of xdog, the client: its configured Roots, an
 * elicitation for the person, a sampling call on the host's model. The same
 * answers serve the legacy wire (server requests over the SDK) and the
 * 2026-07-28 wire (`input_required` rounds). Each is bounded; whatever the
 * host did not enable is refused, never improvised.
 */
import { ErrorCodes, LIMITS, XdogError } from '../../core/index.js';
import { ELICITATION_FORMATS, elicitationValueProblem, type McpElicitationFormat } from './elicitation-fields.js';

/** One elicitation as a person sees it. Form mode only: a URL elicitation is declined. */
export interface McpElicitation {
  server: string;
  message: string;
  /** The flat form asked for: field name → its primitive JSON Schema. */
  fields: Record<string, McpElicitationField>;
  required: string[];
}

export interface McpElicitationField {
  /** `choices`: several of `enum` (a multi-select). */
  type: 'string' | 'number' | 'integer' | 'boolean' | 'choices';
  title?: string;
  description?: string;
  enum?: string[];
  default?: McpElicitationValue;
  /** The form's rules, enforced on the answer (elicitation-fields.ts): string lengths, number range, string format, choices picked. */
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  format?: McpElicitationFormat;
  minItems?: number;
  maxItems?: number;
}

export type McpElicitationAnswer =
  | { action: 'accept'; content: Record<string, McpElicitationValue> }
  | { action: 'decline' | 'cancel'; reason?: string };

export type McpElicitationValue = string | number | boolean | string[];

/** A sampling request as the host runs it (already bounded and validated). */
export interface McpSamplingRequest {
  server: string;
  messages: Array<{ role: 'user' | 'assistant'; text: string }>;
  systemPrompt?: string;
  maxTokens: number;
}

export interface McpSamplingAnswer {
  text: string;
  model: string;
  stopReason: 'endTurn' | 'maxTokens' | 'stopSequence';
}

/**
 * The host's answers to server requests. Without `elicit`, an elicitation is
 * declined with a reason (nobody to ask); without `sample`, sampling is
 * refused (it spends the host's model and money: the host must opt in).
 */
export interface McpClientHandlers {
  elicit?(request: McpElicitation, signal: AbortSignal): Promise<McpElicitationAnswer>;
  sample?(request: McpSamplingRequest, signal: AbortSignal): Promise<McpSamplingAnswer>;
}

/** Roots as the protocol lists them. */
export type McpRoots = Array<{ uri: string; name?: string }>;

/** The capabilities xdog declares for a server: what it will actually answer. */
export function clientCapabilities(roots: McpRoots, handlers: McpClientHandlers): Record<string, unknown> {
  return {
    ...(roots.length > 0 ? { roots: { listChanged: false } } : {}),
    // Always declared: a server that asks gets an answer (an explicit decline when nobody can answer).
    elicitation: { form: {} },
    ...(handlers.sample ? { sampling: {} } : {}),
  };
}

/** Answers one server request (`roots/list`, `elicitation/create`, `sampling/createMessage`). */
export async function answerClientRequest(
  server: string,
  method: string,
  params: unknown,
  context: { roots: McpRoots; handlers: McpClientHandlers; signal: AbortSignal; deadlineMs: number },
): Promise<Record<string, unknown>> {
  switch (method) {
    case 'roots/list':
      if (context.roots.length === 0) throw refusal(server, 'asked for Roots, but none are configured for it', 'add roots: [...] to this server in mcp_servers to disclose folders');
      return { roots: context.roots };
    case 'elicitation/create':
      return elicit(server, params, context);
    case 'sampling/createMessage':
      return sample(server, params, context);
    default:
      throw refusal(server, `asked for "${method}", which xdog does not answer`, 'only roots/list, elicitation/create and sampling/createMessage are answered');
  }
}

async function elicit(server: string, params: unknown, context: { handlers: McpClientHandlers; signal: AbortSignal; deadlineMs: number }): Promise<Record<string, unknown>> {
  const request = parseElicitation(server, params);
  if ('declined' in request) return { action: 'decline', _meta: { 'dev.xdog/reason': request.declined } };
  if (!context.handlers.elicit) {
    return { action: 'decline', _meta: { 'dev.xdog/reason': 'no person can answer here (headless): the elicitation was declined' } };
  }
  const answer = await withDeadline(context.signal, Math.min(context.deadlineMs, LIMITS.mcpElicitationSeconds * 1000), (signal) => context.handlers.elicit!(request, signal)).catch((error: unknown) => {
    if (isDeadline(error)) return { action: 'cancel' as const, reason: (error as Error).message };
    throw error;
  });
  if (answer.action !== 'accept') return { action: answer.action, ...(answer.reason ? { _meta: { 'dev.xdog/reason': answer.reason } } : {}) };
  return { action: 'accept', content: checkElicitationAnswer(server, request, answer.content) };
}

/** A form elicitation's fields, or why it is declined outright (URL mode, a nested form). */
export function parseElicitation(server: string, params: unknown): McpElicitation | { declined: string } {
  const record = (typeof params === 'object' && params !== null ? params : {}) as Record<string, unknown>;
  if (record.mode === 'url') return { declined: 'URL elicitations are not supported by xdog: nothing was opened' };
  const message = record.message;
  if (typeof message !== 'string' || message.length === 0) throw refusal(server, 'sent an elicitation without a message', 'the server is broken');
  if (message.length > LIMITS.mcpElicitationChars) throw refusal(server, `sent an elicitation message over ${LIMITS.mcpElicitationChars} characters`, 'the server must ask shorter questions');
  const schema = (record.requestedSchema ?? {}) as Record<string, unknown>;
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const names = Object.keys(properties);
  if (names.length > LIMITS.mcpElicitationFields) throw refusal(server, `asked for ${names.length} fields (at most ${LIMITS.mcpElicitationFields})`, 'the server must ask for fewer fields');
  const fields: Record<string, McpElicitationField> = {};
  for (const name of names) {
    const field = properties[name] ?? {};
    const items = (field.items ?? {}) as Record<string, unknown>;
    const multi = field.type === 'array';
    const type = multi ? 'choices' : field.type;
    if (type !== 'string' && type !== 'number' && type !== 'integer' && type !== 'boolean' && type !== 'choices') {
      return { declined: `field "${name}" is not a primitive (string, number, integer, boolean) or a multi-select: xdog shows flat forms only` };
    }
    const options = enumOf(multi ? items : field);
    if (multi && !options) return { declined: `field "${name}" is an array without a list of choices: xdog shows flat forms only` };
    fields[name] = {
      type,
      ...(typeof field.title === 'string' ? { title: field.title.slice(0, 200) } : {}),
      ...(typeof field.description === 'string' ? { description: field.description.slice(0, 1000) } : {}),
      ...(options && options.length > 0 ? { enum: options } : {}),
      ...(['string', 'number', 'boolean'].includes(typeof field.default) ? { default: field.default as string | number | boolean } : {}),
      ...(multi && Array.isArray(field.default) ? { default: field.default.filter((value): value is string => typeof value === 'string') } : {}),
      ...fieldRules(field, type),
    };
  }
  const required = Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string' && name in fields) : [];
  return { server, message, fields, required };
}

/** The rules of a field the answer must keep; a malformed rule is ignored (the server's own check still stands). */
function fieldRules(field: Record<string, unknown>, type: McpElicitationField['type']): Partial<McpElicitationField> {
  const count = (key: string): Record<string, number> => (Number.isSafeInteger(field[key]) && (field[key] as number) >= 0 ? { [key]: field[key] as number } : {});
  const bound = (key: string): Record<string, number> => (typeof field[key] === 'number' && Number.isFinite(field[key]) ? { [key]: field[key] as number } : {});
  if (type === 'string') {
    const format = ELICITATION_FORMATS.find((known) => known === field.format);
    return { ...count('minLength'), ...count('maxLength'), ...(format ? { format } : {}) };
  }
  if (type === 'number' || type === 'integer') return { ...bound('minimum'), ...bound('maximum') };
  if (type === 'choices') return { ...count('minItems'), ...count('maxItems') };
  return {};
}

/** The choices of a (single or multi) select: `enum`, or titled `oneOf`/`anyOf` consts. */
function enumOf(schema: Record<string, unknown>): string[] | undefined {
  if (Array.isArray(schema.enum)) {
    const values = schema.enum.filter((value): value is string => typeof value === 'string');
    return values.length > 0 ? values.slice(0, 100) : undefined;
  }
  const titled = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined;
  const values = titled?.map((option) => (option as { const?: unknown })?.const).filter((value): value is string => typeof value === 'string');
  return values && values.length > 0 ? values.slice(0, 100) : undefined;
}

/** The person's answer, checked against the form before it leaves (a typo never reaches the server as junk). */
export function checkElicitationAnswer(server: string, request: McpElicitation, content: Record<string, McpElicitationValue>): Record<string, McpElicitationValue> {
  const out: Record<string, McpElicitationValue> = {};
  for (const [name, value] of Object.entries(content)) {
    const field = request.fields[name];
    if (!field) continue;
    const problem = elicitationValueProblem(name, field, value);
    if (problem) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `the answer's field ${problem}`, { hint: `MCP server "${server}" asked for it; fix that field and answer again` });
    out[name] = value;
  }
  // A field left out takes the default the form offered (SEP-1034), so the server sees what the person saw.
  for (const [name, field] of Object.entries(request.fields)) if (!(name in out) && field.default !== undefined) out[name] = field.default;
  for (const name of request.required) {
    if (!(name in out)) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `the answer lacks the required field "${name}"`, { hint: `MCP server "${server}" asked for it` });
  }
  return out;
}

async function sample(server: string, params: unknown, context: { handlers: McpClientHandlers; signal: AbortSignal; deadlineMs: number }): Promise<Record<string, unknown>> {
  if (!context.handlers.sample) {
    throw refusal(server, 'asked for sampling (a call on your model), which this host has not enabled', 'sampling runs on your model and spends your budget: allow it for this server with sampling: { allow: true } in mcp_servers (claw groups), or pass handlers.sample to McpRegistry (from code)');
  }
  const request = parseSampling(server, params);
  const answer = await withDeadline(context.signal, context.deadlineMs, (signal) => context.handlers.sample!(request, signal));
  return { role: 'assistant', content: { type: 'text', text: answer.text }, model: answer.model, stopReason: answer.stopReason };
}

/** Text-only sampling within the bounds; images, audio and tool use are refused. */
export function parseSampling(server: string, params: unknown): McpSamplingRequest {
  const record = (typeof params === 'object' && params !== null ? params : {}) as Record<string, unknown>;
  const raw = record.messages;
  if (!Array.isArray(raw) || raw.length === 0) throw refusal(server, 'sent a sampling request without messages', 'the server is broken');
  if (raw.length > LIMITS.mcpSamplingMessages) throw refusal(server, `sent ${raw.length} sampling messages (at most ${LIMITS.mcpSamplingMessages})`, 'the server must send fewer');
  if (record.tools !== undefined) throw refusal(server, 'asked for sampling with tools', 'xdog samples text only, without tools');
  const messages = raw.map((message: Record<string, unknown>, index) => {
    const role = message?.role;
    const blocks = Array.isArray(message?.content) ? message.content : [message?.content];
    if ((role !== 'user' && role !== 'assistant') || blocks.some((block) => (block as { type?: unknown })?.type !== 'text')) {
      throw refusal(server, `sampling message ${index} is not text from user or assistant`, 'xdog samples text only');
    }
    return { role, text: blocks.map((block) => String((block as { text?: unknown }).text ?? '')).join('\n') } as { role: 'user' | 'assistant'; text: string };
  });
  const maxTokens = record.maxTokens;
  if (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens) || maxTokens < 1 || maxTokens > LIMITS.mcpSamplingMaxTokens) {
    throw refusal(server, `asked for maxTokens ${String(maxTokens)} (1-${LIMITS.mcpSamplingMaxTokens})`, 'the server must ask for fewer tokens');
  }
  return { server, messages, ...(typeof record.systemPrompt === 'string' ? { systemPrompt: record.systemPrompt } : {}), maxTokens };
}

/** Runs `work` with a signal that ends at the deadline or with `outer`; a deadline is a TIMEOUT error. */
async function withDeadline<T>(outer: AbortSignal, ms: number, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const onAbort = () => controller.abort(outer.reason);
  outer.addEventListener('abort', onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new XdogError(ErrorCodes.ABORTED, `nobody answered within ${Math.round(ms / 1000)} s`, { details: { deadline: true } }));
    }, ms);
  });
  try {
    return await Promise.race([work(controller.signal), deadline]);
  } finally {
    clearTimeout(timer);
    outer.removeEventListener('abort', onAbort);
  }
}

function isDeadline(error: unknown): boolean {
  return XdogError.is(error) && (error.details as { deadline?: unknown } | undefined)?.deadline === true;
}

function refusal(server: string, problem: string, hint: string): XdogError {
  return new XdogError(ErrorCodes.MCP_FAILED, `MCP server "${server}" ${problem}`, { hint });
}
