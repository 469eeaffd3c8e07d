/**
 * Calls the taps of a tapable hook one by one, so the agent can give each
 * tap its own error handling and exact result validation (tapable's own
 * call() would stop at the first throw). The list is copied when dispatch
 * starts: a tap added or removed meanwhile takes effect on the next call.
 */
import type { Hook } from 'tapable';

/** One tap, callable as an async function. */
export interface TapCall {
  name: string;
  call(...args: unknown[]): Promise<unknown>;
}

interface RawTap {
  type: 'sync' | 'async' | 'promise';
  name: string;
  fn: (...args: unknown[]) => unknown;
}

/** The taps of `hook` as they are now, each callable as a promise. */
export function snapshotTaps(hook: Hook<any, any>): TapCall[] {
  const taps = (hook as unknown as { taps: RawTap[] }).taps;
  if (taps.length === 0) return [];
  return taps.map((tap) => ({
    name: tap.name,
    call: (...args: unknown[]) => {
      if (tap.type === 'async') {
        return new Promise((resolve, reject) => {
          tap.fn(...args, (error: unknown, result: unknown) => (error ? reject(error) : resolve(result)));
        });
      }
      try {
        return Promise.resolve(tap.fn(...args));
      } catch (error) {
        return Promise.reject(error);
      }
    },
  }));
}

/** True when the hook has at least one tap (so the caller can skip preparing a payload). */
export function hasTaps(hook: Hook<any, any>): boolean {
  return (hook as unknown as { taps: RawTap[] }).taps.length > 0;
}
