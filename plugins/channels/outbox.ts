/**
 * The replies of one inbound message: sent one after another in the order
 * they completed, chunked to the transport's size, with the typing indicator
 * on from the first moment until `close()`. A failed send is logged and not
 * retried (it may have arrived); once the channel stops nothing more is sent.
 */
import { describeError } from '../../core/index.js';
import { chunkText } from './chunk.js';
import type { ApprovalCard, ChannelTransport, SendContext } from './contract.js';

export interface OutboxCounters {
  sent: number;
  failed: number;
}

export class Outbox {
  readonly #transport: ChannelTransport;
  readonly #to: string;
  readonly #context: SendContext;
  readonly #signal: AbortSignal;
  readonly #counters: OutboxCounters;
  readonly #log: (line: string) => void;
  readonly #onSendFailed?: (error: unknown) => void;
  #chain: Promise<void> = Promise.resolve();
  #typingTimer?: NodeJS.Timeout;

  constructor(options: { transport: ChannelTransport; to: string; context: SendContext; signal: AbortSignal; counters: OutboxCounters; log(line: string): void; onSendFailed?(error: unknown): void }) {
    this.#transport = options.transport;
    this.#to = options.to;
    this.#context = options.context;
    this.#signal = options.signal;
    this.#counters = options.counters;
    this.#log = options.log;
    this.#onSendFailed = options.onSendFailed;
  }

  /** Turns typing on and keeps it on (re-sent as the transport needs) until `close()`. */
  startTyping(): void {
    if (!this.#transport.typing) return;
    this.#enqueue(() => this.#typing(true));
    const every = this.#transport.typingRefreshMs;
    if (every) {
      this.#typingTimer = setInterval(() => this.#enqueue(() => this.#typing(true)), every);
      this.#typingTimer.unref();
    }
  }

  /** Queues one reply (chunked) behind the ones before it. */
  send(text: string): void {
    for (const chunk of chunkText(text, this.#transport.maxMessageChars)) this.#enqueueSend(() => this.#transport.send(this.#to, chunk, this.#context));
  }

  /** Queues an approval request: structured where the transport has a form for it, else as `text`. */
  sendApproval(card: ApprovalCard, text: string): void {
    const structured = this.#transport.sendApproval?.bind(this.#transport);
    if (!structured) return this.send(text);
    this.#enqueueSend(() => structured(this.#to, card, this.#context));
  }

  #enqueueSend(sendOne: () => Promise<void>): void {
    this.#enqueue(async () => {
      try {
        await sendOne();
        this.#counters.sent++;
      } catch (error) {
        this.#counters.failed++;
        this.#onSendFailed?.(error);
        this.#log(`a reply to ${this.#to} failed and is not retried: ${describeError(error)}`);
      }
    });
  }

  /** Waits for the queued sends, then turns typing off. */
  async close(): Promise<void> {
    clearInterval(this.#typingTimer);
    if (this.#transport.typing) this.#enqueue(() => this.#typing(false));
    await this.#chain;
  }

  #enqueue(step: () => Promise<void>): void {
    this.#chain = this.#chain.then(() => (this.#signal.aborted ? undefined : step()));
  }

  async #typing(on: boolean): Promise<void> {
    try {
      await this.#transport.typing!(this.#to, on);
    } catch (error) {
      this.#log(`the typing indicator for ${this.#to} failed: ${describeError(error)}`);
    }
  }
}
