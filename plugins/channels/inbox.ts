/**
 * A channel's inbox: an in-memory FIFO of at most `capacity` messages with
 * one taker (the channel's worker). A pusher either waits for room (polling
 * channels pause) or is told it is full (push channels refuse the delivery);
 * nothing is ever dropped silently. Not durable: closing empties it.
 */
import type { InboundMessage } from './contract.js';

interface Waiter {
  resolve(room: boolean): void;
}

export class ChannelInbox {
  readonly capacity: number;
  readonly #items: InboundMessage[] = [];
  readonly #roomWaiters: Waiter[] = [];
  #taker?: (message: InboundMessage | undefined) => void;
  #closed = false;
  /** The most messages it held at once. */
  #highWater = 0;

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  get size(): number {
    return this.#items.length;
  }

  get highWater(): number {
    return this.#highWater;
  }

  get closed(): boolean {
    return this.#closed;
  }

  has(id: string): boolean {
    return this.#items.some((item) => item.id === id);
  }

  /** Adds it when there is room; false when full or closed. */
  tryPush(message: InboundMessage): boolean {
    if (this.#closed || this.#items.length >= this.capacity) return false;
    const taker = this.#taker;
    if (taker) {
      this.#taker = undefined;
      taker(message);
      return true;
    }
    this.#items.push(message);
    this.#highWater = Math.max(this.#highWater, this.#items.length);
    return true;
  }

  /** Resolves true once there is room (or at once); false when the inbox closed first. */
  waitForRoom(): Promise<boolean> {
    if (this.#closed) return Promise.resolve(false);
    if (this.#items.length < this.capacity) return Promise.resolve(true);
    return new Promise((resolve) => this.#roomWaiters.push({ resolve }));
  }

  /** The oldest message, waiting for one; undefined once closed. */
  take(): Promise<InboundMessage | undefined> {
    if (this.#closed) return Promise.resolve(undefined);
    const next = this.#items.shift();
    if (next) {
      this.#roomWaiters.shift()?.resolve(true);
      return Promise.resolve(next);
    }
    return new Promise((resolve) => (this.#taker = resolve));
  }

  /** Drops what is waiting (the inbox is not durable) and wakes every waiter. Returns how many were dropped. */
  close(): number {
    if (this.#closed) return 0;
    this.#closed = true;
    const dropped = this.#items.splice(0).length;
    for (const waiter of this.#roomWaiters.splice(0)) waiter.resolve(false);
    this.#taker?.(undefined);
    this.#taker = undefined;
    return dropped;
  }
}
