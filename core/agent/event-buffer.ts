/**
 * A bounded event queue, meant for one consumer. Producers await `put()`,
 * which waits while `capacity` events are buffered, so a slow consumer slows
 * the run instead of growing memory. Every waiting producer and reader is
 * woken when things change, so concurrent tools (or a second iterator) never
 * strand one another. Two escape hatches, both explicit:
 * `unbound()` stops waiting (used when a run is being cancelled, so nothing
 * is lost and nothing blocks), `discard()` drops what nobody will read (the
 * consumer left, or asked only for the result).
 */

type Mode = 'bounded' | 'unbounded' | 'discard';

export class EventBuffer<T> implements AsyncIterable<T> {
  readonly #capacity: number;
  #items: T[] = [];
  #head = 0;
  #mode: Mode = 'bounded';
  #ended = false;
  #iterating = false;
  /** Producers waiting for space (parallel tools stream updates at once). */
  #spaceWaiters: Array<() => void> = [];
  /** Consumers waiting for an item or the end (each iterator that is waiting). */
  #itemWaiters: Array<() => void> = [];

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  /** Items buffered and not yet read. */
  get size(): number {
    return this.#items.length - this.#head;
  }

  /** True once a consumer started iterating. */
  get iterating(): boolean {
    return this.#iterating;
  }

  /**
   * Appends one item once there is room (bounded mode only): at once when
   * there is (returns undefined), else returns a promise that settles once
   * it is in. The check and the append happen together, so concurrent
   * producers never overfill it.
   */
  put(item: T): Promise<void> | undefined {
    // The common case (room, or not bounded) appends at once, with no promise to allocate or await.
    if (this.#mode !== 'bounded' || this.size < this.#capacity) {
      this.push(item);
      return undefined;
    }
    return this.#putWhenRoom(item);
  }

  async #putWhenRoom(item: T): Promise<void> {
    while (this.#mode === 'bounded' && this.size >= this.#capacity) {
      await new Promise<void>((resolve) => this.#spaceWaiters.push(resolve));
    }
    this.push(item);
  }

  /** Appends one item now, without waiting for room. */
  push(item: T): void {
    if (this.#ended || this.#mode === 'discard') return;
    this.#items.push(item);
    this.#wakeConsumer();
  }

  /** No more items will come. */
  end(): void {
    this.#ended = true;
    this.#wakeConsumer();
  }

  /** Stop making the producer wait; items are still kept for the consumer. */
  unbound(): void {
    if (this.#mode === 'bounded') this.#mode = 'unbounded';
    this.#wakeProducer();
  }

  /** Drop buffered and future items: nobody will read them. */
  discard(): void {
    this.#mode = 'discard';
    this.#items = [];
    this.#head = 0;
    this.#wakeProducer();
    this.#wakeConsumer();
  }

  /** Wakes every waiting producer; each checks for room again, so none is lost. */
  #wakeProducer(): void {
    if (this.#spaceWaiters.length === 0) return;
    const waiters = this.#spaceWaiters;
    this.#spaceWaiters = [];
    for (const waiter of waiters) waiter();
  }

  #wakeConsumer(): void {
    if (this.#itemWaiters.length === 0) return;
    const waiters = this.#itemWaiters;
    this.#itemWaiters = [];
    for (const waiter of waiters) waiter();
  }

  #shift(): T {
    const item = this.#items[this.#head]!;
    this.#items[this.#head] = undefined as T;
    this.#head++;
    // Compact now and then so reading stays O(1) amortised.
    if (this.#head >= 1024 && this.#head * 2 >= this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    this.#iterating = true;
    return {
      next: async (): Promise<IteratorResult<T>> => {
        for (;;) {
          if (this.size > 0) {
            const value = this.#shift();
            if (this.size < this.#capacity) this.#wakeProducer();
            return { value, done: false };
          }
          if (this.#ended || this.#mode === 'discard') return { value: undefined, done: true };
          await new Promise<void>((resolve) => this.#itemWaiters.push(resolve));
        }
      },
      return: async (): Promise<IteratorResult<T>> => {
        this.discard();
        return { value: undefined, done: true };
      },
    };
  }
}
