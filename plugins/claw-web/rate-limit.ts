/**
 * A token bucket per connection (socket): a page that loops on an endpoint,
 * or a local program hammering the server, gets 429 instead of a share of
 * the gateway. Keyed by the socket object itself, so it goes with it.
 */
import type { Socket } from 'node:net';
import { LIMITS } from '../../core/limits.js';

interface Bucket {
  tokens: number;
  at: number;
}

export class RateLimiter {
  readonly #buckets = new WeakMap<Socket, Bucket>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Takes one token of the socket's bucket; false when it is empty (refuse the request). */
  take(socket: Socket): boolean {
    const now = this.#now();
    const bucket = this.#buckets.get(socket) ?? { tokens: LIMITS.webRequestBurst, at: now };
    bucket.tokens = Math.min(LIMITS.webRequestBurst, bucket.tokens + ((now - bucket.at) / 1000) * LIMITS.webRequestsPerSecond);
    bucket.at = now;
    this.#buckets.set(socket, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }
}
