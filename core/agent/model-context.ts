/**
 * Builds the request for one model call. This is the one place a request is
 * assembled: the context hook rewrites a copy of history, the result is
 * validated, images are admitted against the model's limits. Extend it here
 * (for example to place skills) rather than elsewhere.
 */
import { z } from 'zod';
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

const MessagesSchema = z.array(MessageSchema);

function hookFailed(message: string): XdogError {
  return new XdogError(ErrorCodes.HOOK_FAILED, message, { hint: 'fix or remove that context hook; the conversation was left unchanged' });
}

/** Runs the context taps over a deep copy of history and validates what they return. */
async function renderMessages(input: ModelContextInput, taps: TapCall[]): Promise<readonly Message[]> {
  const info: ContextHookInfo = { model: input.model, systemPrompt: input.systemPrompt, turn: input.turn };
  let messages: unknown = structuredClone(input.messages);
  for (const tap of taps) {
    let answer: unknown;
    try {
      answer = await tap.call(messages, { ...info });
    } catch (error) {
      throw hookFailed(`context hook "${tap.name}" failed: ${describeError(error)}`);
    }
    if (answer !== undefined) messages = answer;
  }
  const parsed = MessagesSchema.safeParse(messages);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw hookFailed(`the context hooks returned invalid messages: ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'bad shape'}`);
  }
  const problem = findPairingProblem(parsed.data);
  if (problem) throw hookFailed(`the context hooks returned a broken tool exchange: ${problem}`);
  return parsed.data;
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
  return renderMessages(input, taps).then((rendered) => contextOf(input, rendered, undefined));
}

function contextOf(input: ModelContextInput, messages: readonly Message[], images: readonly LocatedImage[] | undefined): ModelContext {
  admitImages(messages, input.model, input.modelInfo, images);
  const { systemPrompt, tools } = input;
  // Two literals rather than a conditional spread, which V8 builds far more slowly, once per turn.
  return systemPrompt === undefined ? { messages: messages as Message[], tools } : { systemPrompt, messages: messages as Message[], tools };
}
