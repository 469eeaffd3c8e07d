/**
 * One configured channel at work on the worker that owns its group: its
 * transport, its inbox, and the one worker that hands messages on in
 * arrival order. Each message becomes a job in the group's job queue
 * (`channel.turn`, keyed by `channelInputKey`), so it runs one at a time
 * with the group's other jobs (scheduled runs); the worker takes the next
 * message only after the previous one's turn ended and its replies went
 * out, so a later arrival never changes who is answered. The key makes a
 * message delivered again (a webhook retry, a poll replayed after a crash)
 * never answered twice. The turn itself is `dispatchToGroup` (dispatch.ts).
 */
import { ApprovalBrokerToken, ErrorCodes, LIMITS, XdogError, contributingPackageOf, contributorOf, describeError, utf8Bytes, withArticle, type ClawChannelConfig } from '../../core/index.js';
import type { GatewayHost, GroupJobs } from '../claw-gateway/tokens.js';
import type { ChannelTransport, ChannelType, InboundMessage, OfferResult } from './contract.js';
import { channelInputKey, dispatchToGroup } from './dispatch.js';
import { ChannelInbox } from './inbox.js';
import { Outbox } from './outbox.js';
import { replyTextOf } from './reply.js';
import { storedChannelState } from './state.js';
import { ClawApprovalBroker, answerFromChannel, parseApprovalReply } from '../approvals/index.js';
import { approvalCardOf, approvalCardText } from './approval-card.js';

/** The group job type of a channel turn. */
export const CHANNEL_TURN_JOB = 'channel.turn';

/** What `xdog claw channels status` shows of a channel. */
export interface ChannelStatus {
  id: string;
  type: string;
  group: string;
  running: boolean;
  /** Messages waiting in the inbox, the most it held, and its limit. */
  inbox: { size: number; highWater: number; capacity: number };
  /** The message being answered now (its id and sender), if any. */
  current: { id: string; sender: string } | null;
  counters: { accepted: number; refused: number; full: number; duplicate: number; answered: number; sent: number; failed: number; dropped: number };
  transport: Record<string, unknown>;
}

export class ChannelRunner {
  readonly id: string;
  readonly #config: ClawChannelConfig;
  readonly #type: ChannelType;
  readonly #host: GatewayHost;
  readonly #jobs: GroupJobs;
  readonly #inbox = new ChannelInbox(LIMITS.channelInboxMessages);
  readonly #stop = new AbortController();
  readonly #allowAll: boolean;
  readonly #allowed: ReadonlySet<string>;
  readonly #counters = { accepted: 0, refused: 0, full: 0, duplicate: 0, answered: 0, sent: 0, failed: 0, dropped: 0 };
  #transport?: ChannelTransport;
  #current?: InboundMessage;
  #worker?: Promise<void>;
  #running = false;
  /** The admission of the offer before (see #tryOffer). */
  #admitted: Promise<void> = Promise.resolve();
  /** Ends the wait of the worker for the turn it sent (by job key). */
  readonly #turnEnded = new Map<string, () => void>();

  constructor(id: string, config: ClawChannelConfig, type: ChannelType, host: GatewayHost, jobs: GroupJobs) {
    this.id = id;
    this.#config = config;
    this.#type = type;
    this.#host = host;
    this.#jobs = jobs;
    this.#allowAll = config.allow_from.includes('*');
    this.#allowed = new Set(config.allow_from);
  }

  /** Validates the settings, builds and starts the transport, then starts the worker. */
  async start(): Promise<void> {
    const parsed = this.#type.settings.safeParse(this.#config.settings ?? {});
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const key = issue?.path.length ? `.${issue.path.join('.')}` : '';
      throw new XdogError(ErrorCodes.CONFIG_INVALID, `claw.channels.${this.id}.settings${key}: ${issue?.message ?? 'invalid'}`, { hint: settingsHint(this.#type) });
    }
    this.#host.group(this.#config.group);
    this.#transport = this.#type.create({
      id: this.id,
      settings: parsed.data,
      clock: this.#host.clock,
      signal: this.#stop.signal,
      log: (line) => this.#log(line),
      inbox: { offer: (message) => this.#offer(message), tryOffer: (message) => this.#tryOffer(message) },
      state: storedChannelState(this.#host.store, this.#host.clock, { id: this.id, type: this.#type.type }),
    });
    await this.#transport.start();
    this.#running = true;
    this.#worker = this.#work();
  }

  /**
   * Stops the transport, drops the inbox (not durable) and ends the handler of
   * the message being answered: nothing more is sent. (The gateway cancels the
   * run itself when it closes the group right after.)
   */
  async stop(): Promise<void> {
    this.#running = false;
    this.#stop.abort();
    this.closeInbox();
    try {
      await this.#transport?.stop();
    } finally {
      await this.#worker;
    }
  }

  /**
   * Takes no more messages: the waiting ones are dropped (the inbox is not
   * durable) and new ones refused, while the one being answered goes on. The
   * gateway does this before it ends its runs, so a run ending on the way out
   * never hands the next message to a group that is shutting down.
   */
  closeInbox(): void {
    const dropped = this.#inbox.close();
    this.#counters.dropped += dropped;
    if (dropped) this.#log(`stopping: ${dropped} waiting message(s) dropped (the inbox is not durable)`);
  }

  get group(): string {
    return this.#config.group;
  }

  get running(): boolean {
    return this.#running;
  }

  status(): ChannelStatus {
    return {
      id: this.id,
      type: this.#type.type,
      group: this.#config.group,
      running: this.#running,
      inbox: { size: this.#inbox.size, highWater: this.#inbox.highWater, capacity: this.#inbox.capacity },
      current: this.#current ? { id: this.#current.id, sender: this.#current.sender } : null,
      counters: { ...this.#counters },
      transport: this.#transport?.describe?.() ?? {},
    };
  }

  /** Sends `text` to `to` through the transport (for `xdog claw channels test`); returns the chunks sent, and why each failed one failed. */
  async test(to: string, text: string): Promise<{ sent: number; failed: number; problems: string[] }> {
    if (!this.#transport || !this.#running) throw new XdogError(ErrorCodes.UNAVAILABLE, `channel ${this.id} is not running`, { hint: 'look at the gateway log for why it stopped' });
    const counters = { sent: 0, failed: 0 };
    const problems: string[] = [];
    const outbox = new Outbox({ transport: this.#transport, to, context: {}, signal: this.#stop.signal, counters, log: (line) => this.#log(line), onSendFailed: (error) => problems.push(describeError(error)) });
    outbox.send(text);
    await outbox.close();
    return { ...counters, problems };
  }

  // ---- the inbox side ------------------------------------------------------

  #admission(message: InboundMessage): OfferResult | undefined {
    if (this.#inbox.closed) return 'closed';
    if (!this.#allowAll && !this.#allowed.has(message.sender)) {
      this.#counters.refused++;
      this.#log(`a message from ${JSON.stringify(message.sender)} was refused: the sender is not in claw.channels.${this.id}.allow_from`);
      return 'refused';
    }
    if (!message.text.trim()) return 'empty';
    if (envelopeBytes(message) > LIMITS.channelMessageBytes) return 'too_large';
    return undefined;
  }

  /** True (and counted once) when the message is waiting, being answered, or was answered: the store knows its key. */
  async #isDuplicate(message: InboundMessage): Promise<boolean> {
    const answered = await this.#host.store.hasInputKey(this.#config.group, channelInputKey(this.id, message.id));
    // Offers are admitted one at a time (#tryOffer), so the inbox checks below see every copy admitted before.
    if (!answered && this.#current?.id !== message.id && !this.#inbox.has(message.id)) return false;
    this.#counters.duplicate++;
    return true;
  }

  /** Admits offers one at a time, in the order they came (each asks the store first), so arrival order is kept. */
  #tryOffer(message: InboundMessage): Promise<OfferResult> {
    const result = this.#admitted.then(() => this.#admit(message));
    this.#admitted = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  async #admit(message: InboundMessage): Promise<OfferResult> {
    const refused = this.#admission(message);
    if (refused) return refused;
    // `approve 7` / `deny 7 reason` answers at once: queued, it would wait behind the very run that waits for it.
    const reply = parseApprovalReply(message.text);
    if (reply) {
      const text = await answerFromChannel(this.#host, this.#config.group, reply, `${this.id}:${message.sender}`);
      const outbox = new Outbox({ transport: this.#transport!, to: message.replyTo, context: { inReplyTo: message.id }, signal: this.#stop.signal, counters: this.#counters, log: (line) => this.#log(line) });
      outbox.send(text);
      await outbox.close();
      this.#counters.accepted++;
      return 'accepted';
    }
    if (await this.#isDuplicate(message)) return 'duplicate';
    if (this.#inbox.closed) return 'closed';
    if (!this.#inbox.tryPush(message)) {
      this.#counters.full++;
      return this.#inbox.closed ? 'closed' : 'full';
    }
    this.#counters.accepted++;
    return 'accepted';
  }

  async #offer(message: InboundMessage): Promise<OfferResult> {
    for (;;) {
      const result = await this.#tryOffer(message);
      if (result !== 'full') return result;
      this.#counters.full--;
      if (!(await this.#inbox.waitForRoom())) return 'closed';
    }
  }

  // ---- the worker ----------------------------------------------------------

  async #work(): Promise<void> {
    for (;;) {
      const message = await this.#inbox.take();
      if (!message) return;
      this.#current = message;
      try {
        await this.#send(message);
      } catch (error) {
        this.#log(`message ${message.id} from ${message.sender}: ${describeError(error)}`);
      } finally {
        this.#current = undefined;
      }
    }
  }

  /** Sends the message's turn to the group's job queue and waits until it ran here (or the channel stops). */
  async #send(message: InboundMessage): Promise<void> {
    const key = channelInputKey(this.id, message.id);
    const ended = new Promise<void>((resolve) => this.#turnEnded.set(key, resolve));
    try {
      const outcome = await this.#jobs.send(this.#config.group, { key, type: CHANNEL_TURN_JOB, data: { channel: this.id, message: { ...message } } });
      if (outcome === 'duplicate') {
        this.#counters.duplicate++;
        this.#log(`message ${message.id} from ${message.sender} is already queued or ran; it is not answered again`);
        return;
      }
      await Promise.race([ended, aborted(this.#stop.signal)]);
    } finally {
      this.#turnEnded.delete(key);
    }
  }

  /** Runs a `channel.turn` job of this channel (sent here, or left by a previous owner of the group) and answers it. */
  async runTurn(message: InboundMessage): Promise<void> {
    try {
      if (!this.#running) throw new XdogError(ErrorCodes.UNAVAILABLE, `channel ${this.id} is not running`, { hint: 'the message is not answered' });
      await this.#answer(message);
    } finally {
      this.#turnEnded.get(channelInputKey(this.id, message.id))?.();
    }
  }

  async #answer(message: InboundMessage): Promise<void> {
    const runtime = this.#host.group(this.#config.group);
    const outbox = new Outbox({ transport: this.#transport!, to: message.replyTo, context: { inReplyTo: message.id }, signal: this.#stop.signal, counters: this.#counters, log: (line) => this.#log(line) });
    outbox.startTyping();
    // One run at a time per group: an approval asked while this turn runs is this conversation's, so it gets the card.
    const container = runtime.kernel.container;
    const broker = container.isBound(ApprovalBrokerToken) ? container.get(ApprovalBrokerToken) : undefined;
    const unlisten =
      broker instanceof ClawApprovalBroker
        ? broker.onRequested((record) => {
            const card = approvalCardOf(record);
            outbox.sendApproval(card, approvalCardText(card));
          })
        : undefined;
    try {
      let replies = 0;
      let settle!: (outcome: { status: string; errorMessage?: string }) => void;
      const ended = new Promise<{ status: string; errorMessage?: string }>((resolve) => (settle = resolve));
      const receipt = await dispatchToGroup(runtime, this.id, message, {
        event: (event) => {
          const text = replyTextOf(event);
          if (text === undefined) return;
          replies++;
          outbox.send(text);
        },
        ended: settle,
      }, this.#stop.signal);
      if (!receipt) return;
      if (receipt.status === 'duplicate') {
        this.#counters.duplicate++;
        this.#log(`message ${message.id} from ${message.sender} already ran; it is not answered again`);
        return;
      }
      const outcome = await Promise.race([ended, aborted(this.#stop.signal)]);
      if (!outcome) return;
      if (outcome.status !== 'completed') this.#log(`message ${message.id} from ${message.sender}: the run ended ${outcome.status}${outcome.errorMessage ? `: ${outcome.errorMessage}` : ''} after ${replies} repl${replies === 1 ? 'y' : 'ies'}`);
      this.#counters.answered++;
    } finally {
      unlisten?.();
      await outbox.close();
    }
  }

  #log(line: string): void {
    this.#host.log(`channel ${this.id}: ${line}`);
  }
}

/** The size the inbound limit counts: the text and the ids beside it, which are logged and stored too. */
function envelopeBytes(message: InboundMessage): number {
  return utf8Bytes(message.text) + utf8Bytes(message.id) + utf8Bytes(message.sender) + utf8Bytes(message.replyTo);
}

/** Resolves undefined when `signal` aborts (never rejects). */
function aborted(signal: AbortSignal): Promise<undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(undefined), { once: true }));
}

/** Where a person reads a channel type's settings: docs/channels.md for xdog's own types, else the plugin that provides it. */
function settingsHint(type: ChannelType): string {
  const what = `the settings of ${withArticle(type.type)} channel`;
  const owner = contributorOf(type);
  if (owner === undefined || contributingPackageOf(type) === 'xdog') return `see docs/channels.md for ${what}`;
  return `see the documentation of ${owner} for ${what}`;
}
