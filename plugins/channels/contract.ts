/**
 * The channel contract: what a channel plugin implements and what it is
 * given. A channel type (webhook, irc, wechat, or a third party's) turns a
 * chat transport into inbound messages offered to the channel's inbox and
 * sends the agent's replies back; the channels service owns the inbox, the
 * allow-list, the one worker per channel and what is sent (docs/channels.md).
 */
import type { z } from 'zod';
import { registerContributionKind, token, type Clock, type TraceCarrier } from '../../core/index.js';

/** One message from a person, as a channel received it. */
export interface InboundMessage {
  /**
   * Unique within the channel. When the transport has its own ids, use them:
   * the id keys the run, so a message delivered again never runs twice.
   */
  id: string;
  /** Who sent it, in the transport's terms (what the allow-list names). */
  sender: string;
  /** Where the replies go: a user, a room, a chat. */
  replyTo: string;
  text: string;
  /** The sender's W3C trace context, when the transport carries one (a webhook's `traceparent` header): the turn joins that trace. */
  trace?: TraceCarrier;
}

/**
 * What the inbox said to an offered message.
 * `refused`: the sender is not on the allow-list (nothing runs, nothing is answered).
 * `duplicate`: a message with this id is already waiting, being answered, or was answered.
 * `full`: the inbox holds its limit (only from `tryOffer`; `offer` waits instead).
 * `too_large`, `empty`: the text is over the limit or blank.
 * `closed`: the channel is stopping.
 */
export type OfferResult = 'accepted' | 'refused' | 'duplicate' | 'full' | 'too_large' | 'empty' | 'closed';

/** The channel's side of its inbox. */
export interface ChannelInboxPort {
  /** Waits while the inbox is full: a polling channel pauses here, so nothing is dropped. */
  offer(message: InboundMessage): Promise<OfferResult>;
  /** Never waits for room: a push channel answers `full` to its sender, who delivers again later. (It reads the store, to know an answered message.) */
  tryOffer(message: InboundMessage): Promise<OfferResult>;
}

/** Extra facts about a reply, for transports that can use them. */
export interface SendContext {
  /** The id of the inbound message being answered (absent for `channels test`). */
  inReplyTo?: string;
}

/** A tool call of the conversation's run that waits for a person (docs/approvals.md), as a channel shows it. */
export interface ApprovalCard {
  id: number;
  tool: string;
  args: Record<string, unknown>;
  /** Why the policy asked. */
  reason: string;
  /** Epoch ms after which it is denied with "no answer in N minutes". */
  expiresAt: number;
  /** The chat replies that answer it. */
  replies: { approve: string; deny: string };
}

/** A running channel: its transport, started and stopped by the channels service. */
export interface ChannelTransport {
  /** The longest text one `send` takes; longer replies are chunked before they reach `send`. */
  readonly maxMessageChars: number;
  /** How often the typing indicator must be sent again to stay on, in ms; absent when once is enough. */
  readonly typingRefreshMs?: number;
  /** Connects or listens. A failure fails the gateway's start with the message. */
  start(): Promise<void>;
  /** Stops taking messages and closes connections; sends after it are not made. */
  stop(): Promise<void>;
  /** Sends one chunk. A failure is logged and not retried (it may have arrived). */
  send(to: string, text: string, context: SendContext): Promise<void>;
  /** Turns the typing indicator on or off, where the transport has one. */
  typing?(to: string, on: boolean): Promise<void>;
  /** Sends an approval request as structured data, where the transport has a form for it; without this, its text goes through `send`. */
  sendApproval?(to: string, card: ApprovalCard, context: SendContext): Promise<void>;
  /** Facts for `xdog claw channels status` (an address, a connection state); never secrets. */
  describe?(): Record<string, unknown>;
}

/**
 * A channel's own small durable state: one row in the claw store, for what
 * must survive a restart (a poll cursor, an update offset). The store does
 * not read it; the transport picks the format.
 */
export interface ChannelStatePort {
  /** The state saved last for this channel; undefined when none, or when a channel of another type saved it. */
  load(): Promise<string | undefined>;
  /** Replaces it, committed before this resolves; a state over LIMITS.channelStateBytes is refused. */
  save(state: string): Promise<void>;
}

/** What a channel type's `create` is given. */
export interface ChannelContext<S> {
  /** The channel id (the key under `claw.channels`). */
  id: string;
  /** The validated `settings`. */
  settings: S;
  inbox: ChannelInboxPort;
  /** Durable state of this channel (see ChannelStatePort). */
  state: ChannelStatePort;
  clock: Clock;
  /** Aborted when the channel stops: end polls and waits with it. */
  signal: AbortSignal;
  log(line: string): void;
}

/** A kind of channel a plugin provides, named by `claw.channels.ID.type`. */
export interface ChannelType<S = unknown> {
  readonly type: string;
  /** Validates `settings`; its errors name the key. */
  readonly settings: z.ZodType<S>;
  /** Builds the transport; starts nothing (the service calls `start`). */
  create(context: ChannelContext<S>): ChannelTransport;
}

/** Declares a channel type with its settings typed from the schema. */
export function defineChannelType<S extends z.ZodType>(type: string, settings: S, create: (context: ChannelContext<z.infer<S>>) => ChannelTransport): ChannelType<z.infer<S>> {
  return { type, settings: settings as z.ZodType<z.infer<S>>, create };
}

export const ChannelTypeContribution = token<ChannelType>('channels.ChannelType');
// A plugin binding a channel type declares it in `provides.channels`; two plugins with one type fail naming both.
registerContributionKind(ChannelTypeContribution, 'channels', 'channel type', 'type');
