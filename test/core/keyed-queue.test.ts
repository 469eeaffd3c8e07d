import { describe, expect, it } from 'vitest';
import { KeyedQueue } from '../../core/keyed-queue.js';

/** A piece of work that runs until the test releases it, logging when it starts and ends. */
function gated(log: string[], name: string) {
  let release!: () => void;
  let fail!: (error: Error) => void;
  const gate = new Promise<void>((resolve, reject) => ((release = resolve), (fail = reject)));
  const work = async (): Promise<string> => {
    log.push(`start ${name}`);
    try {
      await gate;
      return name;
    } finally {
      log.push(`end ${name}`);
    }
  };
  return { work, release, fail };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('KeyedQueue', () => {
  it('runs the calls of one key one at a time in call order, while another key runs at once', async () => {
    const queue = new KeyedQueue();
    const log: string[] = [];
    const [a1, a2, b1] = [gated(log, 'a1'), gated(log, 'a2'), gated(log, 'b1')];
    const results = [queue.run('a', a1.work), queue.run('a', a2.work), queue.run('b', b1.work)];
    await settle();
    expect(log).toEqual(['start a1', 'start b1']);
    a1.fail(new Error('a1 failed'));
    await expect(results[0]).rejects.toThrow('a1 failed');
    await settle();
    // A failure does not hold the next call up.
    expect(log).toEqual(['start a1', 'start b1', 'end a1', 'start a2']);
    a2.release();
    b1.release();
    expect(await Promise.all(results.slice(1))).toEqual(['a2', 'b1']);
    expect(queue.size).toBe(0);
  });

  it('never starts a queued call whose signal was aborted, and the next one still runs', async () => {
    const queue = new KeyedQueue();
    const log: string[] = [];
    const [first, skipped, last] = [gated(log, 'first'), gated(log, 'skipped'), gated(log, 'last')];
    const controller = new AbortController();
    const running = queue.run('k', first.work);
    const aborted = queue.run('k', skipped.work, controller.signal);
    const after = queue.run('k', last.work);
    controller.abort(new Error('cancelled while queued'));
    first.release();
    await expect(aborted).rejects.toThrow('cancelled while queued');
    last.release();
    expect([await running, await after]).toEqual(['first', 'last']);
    expect(log).not.toContain('start skipped');
  });
});
