/**
 * Builds the request for one model call. This is the one place a request is
 * assembled: the context hook rewrites a read-only copy of history, what it
 * changed is validated, images are admitted against the model's limits. Extend it here
 * (for example to place skills) rather than elsewhere.
 */
import type { AgentHooks, ContextHookInfo } from '../../hooks/agent.js';
import { ErrorCodes, XdogError, describeError } from '../errors.js';
import type { ModelContext, ModelInfo } from '../model/types.js';
import { admitImages, type LocatedImage } from './image-admission.js';
import { MessageSchema, type Message } from './messages.js';
import { snapshotTaps, type TapCall } from './tap-dispatch.js';
import type { ToolDefinition } from './tool-types.js';
import { findPairingProblem } from './transcript.js';

/** What one request is built from. */
export interface ModelContextInput {
  model: string;
  systemPrompt?: string;
  turn: number;
  messages: readonly Message[];
  /** The images of `messages`, when the caller keeps them located (else they are found here). */
  images?: readonly LocatedImage[];
  tools: ToolDefinition[];
  hooks: AgentHooks;
  modelInfo?: ModelInfo;
}

function hookFailed(message: string): XdogError {
  return new XdogError(ErrorCodes.HOOK_FAILED, message, { hint: 'fix or remove that context hook; the conversation was left unchanged' });
}

/*
 * Context taps see read-only copies of history, made once per message and
 * kept while the message lives: a model call then costs the taps' own work,
 * not a deep copy and a schema check of the whole history. A tap changes the
 * request by returning a new list (new message objects where it changes one);
 * writing into a copy throws, and the request fails with HOOK_FAILED.
 */
const readOnlyCopies = new WeakMap<Message, Message>();
/** The copies above: known valid, so what a tap passes through unchanged is not checked again. */
const checkedCopies = new WeakSet<object>();

function readOnlyCopy(message: Message): Message {
  let copy = readOnlyCopies.get(message);
  if (!copy) {
    copy = deepFreeze(structuredClone(message));
    readOnlyCopies.set(message, copy);
    checkedCopies.add(copy);
  }
  return copy;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

/** Runs the context taps over read-only copies of history and validates what they changed. */
async function renderMessages(input: ModelContextInput, taps: TapCall[]): Promise<{ messages: readonly Message[]; changed: boolean }> {
  const info: ContextHookInfo = { model: input.model, systemPrompt: input.systemPrompt, turn: input.turn };
  const copies = input.messages.map(readOnlyCopy);
  let messages: unknown = copies;
  for (const tap of taps) {
    let answer: unknown;
    try {
      answer = await tap.call(messages, { ...info });
    } catch (error) {
      throw hookFailed(`context hook "${tap.name}" failed: ${describeError(error)}`);
    }
    if (answer !== undefined) messages = answer;
  }
  if (!Array.isArray(messages)) throw hookFailed('the context hooks returned invalid messages: (root): expected an array');
  // Only what a tap made is checked; a copy it passed on is history, valid already.
  const rendered: Message[] = new Array<Message>(messages.length);
  let changed = messages.length !== copies.length;
  for (let i = 0; i < messages.length; i++) {
    const message: unknown = messages[i];
    if (typeof message === 'object' && message !== null && checkedCopies.has(message)) {
      rendered[i] = message as Message;
      if (message !== copies[i]) changed = true;
      continue;
    }
    changed = true;
    const parsed = MessageSchema.safeParse(message);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw hookFailed(`the context hooks returned invalid messages: ${[i, ...(issue?.path ?? [])].join('.')}: ${issue?.message ?? 'bad shape'}`);
    }
    rendered[i] = parsed.data;
  }
  // History is as the loop keeps it; only a changed list can have broken a tool exchange.
  const problem = changed ? findPairingProblem(rendered) : undefined;
  if (problem) throw hookFailed(`the context hooks returned a broken tool exchange: ${problem}`);
  return { messages: rendered, changed };
}

/**
 * Builds the ModelContext for one call. Throws XdogError (HOOK_FAILED,
 * IMAGE_REJECTED) when the request must not be sent; history is never touched.
 * Without context taps nothing is awaited, so the result comes back at once.
 */
export function buildModelContext(input: ModelContextInput): ModelContext | Promise<ModelContext> {
  const taps = snapshotTaps(input.hooks.context);
  // History itself, not a copy per turn: nothing is appended while the model streams, and
  // ModelContext says a stream function that keeps the messages copies them.
  if (taps.length === 0) return contextOf(input, input.messages, input.images);
  // Unchanged copies hold the same images at the same places: the located images still apply.
  return renderMessages(input, taps).then(({ messages, changed }) => contextOf(input, messages, changed ? undefined : input.images));
}

function contextOf(input: ModelContextInput, messages: readonly Message[], images: readonly LocatedImage[] | undefined): ModelContext {
  admitImages(messages, input.model, input.modelInfo, images);
  const { systemPrompt, tools } = input;
  // Two literals rather than a conditional spread, which V8 builds far more slowly, once per turn.
  return systemPrompt === undefined ? { messages: messages as Message[], tools } : { systemPrompt, messages: messages as Message[], tools };
}
