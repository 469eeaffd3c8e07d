/**
 * Agent events as the gateway sends them. Events that repeat what another
 * already carries are cut down, so a long turn's traffic stays linear:
 * `message_update` carries only its delta without the partial message
 * (clients accumulate it; `message_end` brings the whole message), `turn_end`
 * and `agent_end` leave out messages that `message_end` already delivered,
 * and snapshots are not sent at all.
 */
import type { AgentEvent, AssistantStreamEvent, ToolCall } from '../../core/index.js';
import { Notifications } from './protocol-names.js';
import type { Mergeable } from './transport/index.js';

export type WireEvent =
  | Exclude<AgentEvent, { type: 'message_update' | 'turn_end' | 'agent_end' | 'snapshot' }>
  | { type: 'message_update'; delta: WireDelta }
  | { type: 'turn_end'; turn: number; stopReason: string }
  | { type: 'agent_end' };

/** The params of an `event` notification. */
export interface EventParams {
  group: string;
  sessionId: string;
  inputId?: string;
  event: WireEvent;
}

/** A model stream delta without the partial message it would repeat. */
export type WireDelta =
  | { type: 'start' }
  | { type: 'text_delta' | 'thinking_delta' | 'toolcall_delta'; delta: string }
  | { type: 'toolcall_end'; toolCall: ToolCall | undefined }
  | { type: 'retry'; attempt: number; delayMs: number; reason: string };

function toWireDelta(delta: AssistantStreamEvent): WireDelta | undefined {
  switch (delta.type) {
    case 'start':
      return { type: 'start' };
    case 'text_delta':
    case 'thinking_delta':
    case 'toolcall_delta':
      return { type: delta.type, delta: delta.delta };
    case 'toolcall_end':
      return { type: 'toolcall_end', toolCall: delta.partial.content.findLast((part): part is ToolCall => part.type === 'toolCall') };
    case 'retry':
      return delta;
    default:
      // done / error: the message_end event that follows carries the whole message.
      return undefined;
  }
}

/** The wire form of an event, or undefined for events clients never get. */
export function toWireEvent(event: AgentEvent): WireEvent | undefined {
  switch (event.type) {
    case 'message_update': {
      const delta = toWireDelta(event.delta);
      return delta && { type: 'message_update', delta };
    }
    case 'turn_end':
      return { type: 'turn_end', turn: event.turn, stopReason: event.message.stopReason };
    case 'agent_end':
      return { type: 'agent_end' };
    case 'snapshot':
      return undefined;
    default:
      return event;
  }
}

/**
 * How the `event` notification of a text, thinking or tool-argument delta
 * joins the ones before it of the same kind and run for a client that is
 * behind: one notification with their joined text, which stays exact.
 */
export function mergeableOf(method: string, params: unknown): Mergeable | undefined {
  if (method !== Notifications.event) return undefined;
  const notification = params as EventParams;
  const event = notification?.event;
  if (event?.type !== 'message_update') return undefined;
  const { delta } = event;
  if (delta.type !== 'text_delta' && delta.type !== 'thinking_delta' && delta.type !== 'toolcall_delta') return undefined;
  return {
    key: JSON.stringify([notification.group, notification.sessionId, notification.inputId ?? null, delta.type]),
    text: delta.delta,
    build: (text) => ({ ...notification, event: { type: 'message_update', delta: { type: delta.type, delta: text } } }),
  };
}
