/**
 * Sleeps until a time on the gateway's clock. A real timer only bounds the
 * wait (re-checking at least every `LIMITS.scheduleWakeSeconds`, so a system
 * clock that jumps is noticed); a clock that can jump (a test's fake clock)
 * wakes the sleeper through `onChange`, and `poke()` wakes it when the work
 * changed (a job added, resumed, run now).
 */
import type { Clock } from '../../core/index.js';
import { LIMITS } from '../../core/limits.js';

export class Waker {
  #wake?: () => void;
  /** A poke that came while nobody slept: the next sleep ends at once (the work it announced is checked). */
  #poked = false;
  readonly #dispose?: () => void;

  constructor(private readonly clock: Clock) {
    this.#dispose = clock.onChange?.(() => this.poke());
  }

  /** Resolves at `at` (clock time), on a poke, or after the re-check period, whichever is first. */
  until(at: number): Promise<void> {
    if (this.#poked) {
      this.#poked = false;
      return Promise.resolve();
    }
    const wait = Math.min(Math.max(0, at - this.clock.now()), LIMITS.scheduleWakeSeconds * 1000);
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        if (this.#wake === done) this.#wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, wait);
      timer.unref();
      this.#wake = done;
    });
  }

  poke(): void {
    if (this.#wake) this.#wake();
    else this.#poked = true;
  }

  dispose(): void {
    this.#dispose?.();
    this.poke();
  }
}
