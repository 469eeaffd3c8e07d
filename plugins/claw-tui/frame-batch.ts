/**
 * The bounded FIFO between the gateway's notifications and the screen. A
 * long reply arrives as thousands of small `message_update`s; applying and
 * rendering each one as it lands would keep the event loop busy and the
 * keys typed meanwhile waiting. Here they wait in arrival order and are
 * applied once per frame, for at most a time budget (the rest waits for the
 * next frame, after the keys read in between), with one render per frame.
 * The queue is bounded: when it is full, what waits is applied at once, so
 * memory stays bounded and nothing is dropped or reordered.
 */
import { LIMITS } from '../../core/limits.js';

export interface FrameBatchOptions {
  /** How many items wait at most (default `LIMITS.tuiFrameBatchEvents`). */
  limit?: number;
  /** Milliseconds between frames (pi-tui renders at most every 16 ms). */
  frameMs?: number;
  /** Milliseconds of applying per frame before the rest waits. */
  budgetMs?: number;
}

export class FrameBatch<T> {
  #items: T[] = [];
  #timer: NodeJS.Timeout | undefined;
  readonly #limit: number;
  readonly #frameMs: number;
  readonly #budgetMs: number;

  constructor(
    private readonly apply: (item: T) => void,
    /** After each frame's items (one render request). */
    private readonly frameDone: () => void,
    options: FrameBatchOptions = {},
  ) {
    this.#limit = options.limit ?? LIMITS.tuiFrameBatchEvents;
    this.#frameMs = options.frameMs ?? 16;
    this.#budgetMs = options.budgetMs ?? 8;
  }

  /** Items waiting for a frame. */
  get size(): number {
    return this.#items.length;
  }

  push(item: T): void {
    if (this.#items.length >= this.#limit) this.flush();
    this.#items.push(item);
    this.#timer ??= setTimeout(() => this.#frame(), this.#frameMs);
  }

  /** Applies everything waiting now, in order (a full queue, a quit). */
  flush(): void {
    this.#run(Infinity);
  }

  /** Drops the pending frame (the TUI quits); what waits is not applied. */
  stop(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#items = [];
  }

  #frame(): void {
    this.#timer = undefined;
    this.#run(this.#budgetMs);
  }

  #run(budgetMs: number): void {
    const end = performance.now() + budgetMs;
    const items = this.#items;
    let done = 0;
    // At least one item per frame, so a slow item cannot stall the queue.
    try {
      while (done < items.length && (done === 0 || performance.now() < end)) this.apply(items[done++]!);
    } finally {
      this.#items = items.slice(done);
      if (this.#items.length) this.#timer ??= setTimeout(() => this.#frame(), 0);
      else if (this.#timer) {
        clearTimeout(this.#timer);
        this.#timer = undefined;
      }
      this.frameDone();
    }
  }
}
