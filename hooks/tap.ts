/**
 * Taps that can be taken back. tapable has no `untap`, so a disposer removes
 * its own tap object from `hook.taps` and lets the hook recompile. A running
 * dispatch keeps the taps it started with: tapable copies them into the
 * compiled call, so a tap added (or removed) during dispatch takes effect on
 * the next call.
 */
import type { Hook } from 'tapable';

/** Undoes one registration. Calling it again does nothing. */
export type Disposer = () => void;

/** The most taps one hook instance takes; core/limits.ts publishes it as LIMITS.hookTapsPerHook. */
export const MAX_TAPS_PER_HOOK = 32;

interface TapableInternals {
  taps: Array<{ fn: unknown; name: string }>;
  _resetCompilation(): void;
}

function isSyncHook(hook: Hook<any, any>): boolean {
  return hook.constructor.name.startsWith('Sync');
}

/**
 * Taps `fn` into `hook` under `name` and returns an idempotent disposer that
 * removes only this tap. Async hooks accept sync or async functions.
 * `options.stage` orders it among the other taps (see stages.ts).
 * Throws when the hook already holds MAX_TAPS_PER_HOOK taps.
 */
export function tapHook<T, R>(hook: Hook<T, R>, name: string, fn: (...args: any[]) => any, options: { stage?: number } = {}): Disposer {
  const internals = hook as unknown as TapableInternals;
  if (internals.taps.length >= MAX_TAPS_PER_HOOK) {
    throw new Error(`hook "${hook.name ?? 'anonymous'}" already has ${MAX_TAPS_PER_HOOK} taps; dispose one before adding "${name}"`);
  }
  // A fresh function per tap gives the disposer an identity to look for.
  const wrapped = isSyncHook(hook)
    ? (...args: unknown[]) => fn(...args)
    : async (...args: unknown[]) => fn(...args);
  const tap = options.stage === undefined ? name : { name, stage: options.stage };
  if (isSyncHook(hook)) hook.tap(tap, wrapped as never);
  else (hook as any).tapPromise(tap, wrapped);
  let disposed = false;
  return () => {
    if (disposed) return;
    disposed = true;
    const index = internals.taps.findIndex((tap) => tap.fn === wrapped);
    if (index >= 0) {
      internals.taps.splice(index, 1);
      internals._resetCompilation();
    }
  };
}
