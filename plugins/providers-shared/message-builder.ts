/**
 * Builds one assistant message from streamed vendor deltas and produces the
 * matching `AssistantStreamEvent`s. Vendors differ in wire format, not in
 * what a message is, so every provider maps its deltas onto these calls.
 */
import { zeroUsage, type AssistantMessage, type AssistantStreamEvent, type StopReason, type ToolCall, type Usage } from '../../core/index.js';

interface PendingToolCall {
  call: ToolCall;
  json: string;
}

export class MessageBuilder {
  readonly message: AssistantMessage;
  readonly #toolCalls = new Map<string | number, PendingToolCall>();
  /** True once any text, thinking or tool call was streamed: from then on nothing is retried. */
  outputStarted = false;

  constructor(model: string, now: number = Date.now()) {
    this.message = { role: 'assistant', content: [], model, usage: zeroUsage(), stopReason: 'stop', timestamp: now };
  }

  /** A deep copy for events, so consumers never see later mutation. */
  snapshot(): AssistantMessage {
    return structuredClone(this.message);
  }

  text(delta: string): AssistantStreamEvent | undefined {
    if (!delta) return undefined;
    this.outputStarted = true;
    const last = this.message.content.at(-1);
    if (last?.type === 'text') last.text += delta;
    else this.message.content.push({ type: 'text', text: delta });
    return { type: 'text_delta', delta, partial: this.snapshot() };
  }

  thinking(delta: string): AssistantStreamEvent | undefined {
    if (!delta) return undefined;
    this.outputStarted = true;
    const last = this.message.content.at(-1);
    if (last?.type === 'thinking' && !last.redacted) last.thinking += delta;
    else this.message.content.push({ type: 'thinking', thinking: delta });
    return { type: 'thinking_delta', delta, partial: this.snapshot() };
  }

  /** An encrypted thinking block, kept whole so it can be sent back (Anthropic `redacted_thinking`). */
  redactedThinking(data: string): void {
    this.outputStarted = true;
    this.message.content.push({ type: 'thinking', thinking: '', signature: data, redacted: true });
  }

  /** Attaches a signature to the current thinking block (Anthropic replays it verbatim). */
  thinkingSignature(signature: string): void {
    const last = this.message.content.at(-1);
    if (last?.type === 'thinking' && !last.redacted) last.signature = (last.signature ?? '') + signature;
  }

  /**
   * A tool-call delta. `key` identifies the call across chunks (the vendor's
   * index); id and name arrive once, argument JSON arrives in pieces.
   */
  toolCall(key: string | number, part: { id?: string; name?: string; arguments?: string }): AssistantStreamEvent {
    this.outputStarted = true;
    let pending = this.#toolCalls.get(key);
    if (!pending) {
      pending = { call: { type: 'toolCall', id: part.id ?? '', name: part.name ?? '', arguments: {} }, json: '' };
      this.#toolCalls.set(key, pending);
      this.message.content.push(pending.call);
    } else {
      if (part.id) pending.call.id = part.id;
      // Names normally arrive once; some compatible servers repeat the whole name in later chunks.
      if (part.name && part.name !== pending.call.name) pending.call.name += part.name;
    }
    pending.json += part.arguments ?? '';
    return { type: 'toolcall_delta', delta: part.arguments ?? '', partial: this.snapshot() };
  }

  /**
   * Parses every pending tool call's JSON arguments. Throws on an invalid or
   * non-object argument text: such a call must not run.
   */
  finishToolCalls(): AssistantStreamEvent[] {
    const events: AssistantStreamEvent[] = [];
    for (const pending of this.#toolCalls.values()) {
      const { call } = pending;
      if (!call.id || !call.name) throw new ProviderProtocolError(`the model streamed a tool call without ${call.id ? 'a name' : 'an id'}`);
      let args: unknown;
      try {
        args = pending.json.trim() === '' ? {} : JSON.parse(pending.json);
      } catch {
        throw new ProviderProtocolError(`the model sent invalid JSON arguments for tool "${call.name}"`);
      }
      if (typeof args !== 'object' || args === null || Array.isArray(args)) {
        throw new ProviderProtocolError(`the model sent arguments for tool "${call.name}" that are not a JSON object`);
      }
      call.arguments = args as Record<string, unknown>;
      events.push({ type: 'toolcall_end', partial: this.snapshot() });
    }
    this.#toolCalls.clear();
    return events;
  }

  usage(usage: Partial<Usage>): void {
    Object.assign(this.message.usage, Object.fromEntries(Object.entries(usage).filter(([, value]) => value !== undefined)));
  }

  stop(reason: StopReason): void {
    this.message.stopReason = reason;
  }
}

/** A malformed response (bad tool-call JSON, missing ids): never retried. */
export class ProviderProtocolError extends Error {
  override readonly name = 'ProviderProtocolError';
}

/** The response stream closed before the vendor's final event: treated like a dropped connection. */
export class IncompleteStreamError extends Error {
  override readonly name = 'IncompleteStreamError';
}
