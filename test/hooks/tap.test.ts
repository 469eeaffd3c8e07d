import { AsyncSeriesBailHook, AsyncSeriesWaterfallHook, SyncHook } from 'tapable';
import { describe, expect, it } from 'vitest';
import { createAgentHooks, createKernelHooks, MAX_TAPS_PER_HOOK, tapHook } from '../../hooks/index.js';

describe('tapHook disposers', () => {
  it('removes only its own tap, and a second call is harmless', () => {
    const hook = new SyncHook<[string[]]>(['log']);
    const disposeA = tapHook(hook, 'a', (log: string[]) => log.push('a'));
    tapHook(hook, 'b', (log: string[]) => log.push('b'));
    const disposeC = tapHook(hook, 'c', (log: string[]) => log.push('c'));

    disposeA();
    disposeA();
    const log: string[] = [];
    hook.call(log);
    expect(log).toEqual(['b', 'c']);

    disposeC();
    const after: string[] = [];
    hook.call(after);
    expect(after).toEqual(['b']);
  });

  it('does not remove a same-named tap added by someone else', async () => {
    const hook = new AsyncSeriesWaterfallHook<[number]>(['n']);
    const dispose = tapHook(hook, 'same', (n: number) => n + 1);
    tapHook(hook, 'same', async (n: number) => n * 10);
    dispose();
    expect(await hook.promise(1)).toBe(10);
  });

  it('a tap added during dispatch runs from the next call on', () => {
    const hook = new SyncHook<[string[]]>(['log']);
    tapHook(hook, 'first', (log: string[]) => {
      log.push('first');
      if (log.length === 1) tapHook(hook, 'late', (l: string[]) => l.push('late'));
    });
    const firstCall: string[] = [];
    hook.call(firstCall);
    expect(firstCall).toEqual(['first']);
    const secondCall: string[] = ['x'];
    hook.call(secondCall);
    expect(secondCall).toEqual(['x', 'first', 'late']);
  });

  it('a tap disposed during dispatch still runs in that dispatch, and not after', async () => {
    const hook = new AsyncSeriesBailHook<[string[]], string | undefined>(['log']);
    let disposeSecond = () => {};
    tapHook(hook, 'first', (log: string[]) => {
      log.push('first');
      disposeSecond();
      return undefined;
    });
    disposeSecond = tapHook(hook, 'second', (log: string[]) => void log.push('second'));
    const one: string[] = [];
    await hook.promise(one);
    expect(one).toEqual(['first', 'second']);
    const two: string[] = [];
    await hook.promise(two);
    expect(two).toEqual(['first']);
  });

  it('enforces the per-hook tap limit with a clear error', () => {
    const hook = new SyncHook<[]>([]);
    for (let i = 0; i < MAX_TAPS_PER_HOOK; i++) tapHook(hook, `t${i}`, () => {});
    expect(() => tapHook(hook, 'one-too-many', () => {})).toThrow(/already has 32 taps/);
  });

  it('bail hooks stop at the first result; waterfall hooks rewrite', async () => {
    const hooks = createAgentHooks();
    const calls: string[] = [];
    tapHook(hooks.beforeToolCall, 'deny', () => {
      calls.push('deny');
      return { block: true, reason: 'no' };
    });
    tapHook(hooks.beforeToolCall, 'never', () => void calls.push('never'));
    const result = await hooks.beforeToolCall.promise({} as never);
    expect(result).toEqual({ block: true, reason: 'no' });
    expect(calls).toEqual(['deny']);
  });

  it('agent and kernel hook sets are frozen and per instance', () => {
    const a = createKernelHooks();
    const b = createKernelHooks();
    expect(Object.isFrozen(a)).toBe(true);
    expect(a.agentCreated).not.toBe(b.agentCreated);
  });
});
