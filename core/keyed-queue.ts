/**
 * Work that must not overlap for one key (a file, a browser page) runs one
 * call at a time per key, in the order the calls were made; work for other
 * keys does not wait. A failed call does not hold up the next one.
 */
export class KeyedQueue {
  /** The last queued holder per key; an entry is removed when its queue drains. */
  readonly #tails = new Map<string, Promise<void>>();

  /**
   * Runs `work` when every earlier call for `key` has settled. When `signal`
   * is aborted while the call is still queued, `work` never starts and the
   * returned promise rejects with the abort reason.
   */
  run<T>(key: string, work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => held);
    this.#tails.set(key, tail);
    return (async () => {
      try {
        await previous;
        signal?.throwIfAborted();
        return await work();
      } finally {
        release();
        if (this.#tails.get(key) === tail) this.#tails.delete(key);
      }
    })();
  }

  /** Keys with a call running or queued (for tests and status). */
  get size(): number {
    return this.#tails.size;
  }
}
