/**
 * Agent events: the only output of a run. One union discriminated by a
 * snake_case `type`, nested agent > turn > message > tool.
 */
import type { AssistantStreamEvent } from '../model/types.js';
import type { AssistantMessage, Message, ToolResultMessage, UserMessage } from './messages.js';
import type { AgentSnapshot } from './snapshot.js';
import type { AgentToolResult } from './tool-types.js';
import type { CompactionReason } from '../../hooks/agent.js';
import type { CompactionResult, HandledInput, InputLane } from './types.js';

/** A run began. */
export interface AgentStartEvent {
  type: 'agent_start';
}
/** A run settled; `messages` is the whole history at that point. */
export interface AgentEndEvent {
  type: 'agent_end';
  messages: Message[];
}
/** One model call (and its tool batch) began. `turn` counts from 1 within the run. */
export interface TurnStartEvent {
  type: 'turn_start';
  turn: number;
}
/** One model call and its tool batch finished. */
export interface TurnEndEvent {
  type: 'turn_end';
  turn: number;
  message: AssistantMessage;
  toolResults: ToolResultMessage[];
}
/** A message began: a streamed assistant message (partial), or a user/tool-result message (complete). */
export interface MessageStartEvent {
  type: 'message_start';
  message: Message;
}
/** A streamed assistant message changed; `delta` is the model's event. */
export interface MessageUpdateEvent {
  type: 'message_update';
  message: AssistantMessage;
  delta: AssistantStreamEvent;
}
/** The provider retries the model request (429, 5xx or a dropped connection before any output). */
export interface ModelRetryEvent {
  type: 'model_retry';
  attempt: number;
  delayMs: number;
  reason: string;
}
/** A message is final and part of history. */
export interface MessageEndEvent {
  type: 'message_end';
  message: Message;
}
/** A tool call begins (before argument validation and the permission hook); every call also gets a `tool_end`. */
export interface ToolStartEvent {
  type: 'tool_start';
  toolCallId: string;
  toolName: string;
  args: Record<string, unknown>;
}
/** A running tool reported progress. */
export interface ToolUpdateEvent {
  type: 'tool_update';
  toolCallId: string;
  toolName: string;
  partial: AgentToolResult;
}
/** A tool call's final (finalised) outcome, the same the tool-result message carries. */
export interface ToolEndEvent {
  type: 'tool_end';
  toolCallId: string;
  toolName: string;
  result: AgentToolResult;
  isError: boolean;
}
/** A steer or follow-up was admitted to history (not merely dequeued). */
export interface InputConsumedEvent {
  type: 'input_consumed';
  /** The id of an identified input; absent for plain steer()/followUp(). */
  id?: string;
  lane: InputLane;
  message: UserMessage;
}
/** An input transform handled an input: it never reached history or the model. */
export interface InputHandledEvent {
  type: 'input_handled';
  receipt: HandledInput;
}
/** Opt-in (`emitSnapshots`): the agent state at a safe boundary. An observation, not persistence. */
export interface SnapshotEvent {
  type: 'snapshot';
  snapshot: AgentSnapshot;
}

/** A compaction began (manual ones reach `subscribe` listeners only: they run outside any prompt). */
export interface CompactionStartEvent {
  type: 'compaction_start';
  reason: CompactionReason;
}
/** A compaction ended: its result, or the error that left the history unchanged. */
export interface CompactionEndEvent {
  type: 'compaction_end';
  reason: CompactionReason;
  result?: CompactionResult;
  error?: { code: string; message: string };
}

/** Every event an Agent emits. */
export type AgentEvent =
  | AgentStartEvent
  | AgentEndEvent
  | TurnStartEvent
  | TurnEndEvent
  | MessageStartEvent
  | MessageUpdateEvent
  | MessageEndEvent
  | ModelRetryEvent
  | ToolStartEvent
  | ToolUpdateEvent
  | ToolEndEvent
  | InputConsumedEvent
  | InputHandledEvent
  | SnapshotEvent
  | CompactionStartEvent
  | CompactionEndEvent;

/** Observes events; must not throw (a throwing listener is isolated and does not stop the run). */
export type AgentEventListener = (event: AgentEvent) => void;
