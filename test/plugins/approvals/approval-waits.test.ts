/**
 * What wakes a run waiting for an approval: an answer in this process wakes
 * it at once, and on PostgreSQL an answer taken by another worker arrives by
 * NOTIFY. The waits here have a fallback of ten minutes, so only the wake-up
 * can end them within the test's deadline.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { openClawDataSource } from '../../../entities/index.js';
import { ApprovalWaits } from '../../../plugins/approvals/approval-waits.js';
import { openWakeups, type Wakeups } from '../../../plugins/claw-gateway/wakeups.js';
import { openTestDataSource, storeKinds, type TestDataSource } from '../../support/stores.js';

const NEVER_BY_ITSELF = 10 * 60_000;

describe('approval waits', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('an answer in this process wakes only the waiter of that approval', async () => {
    const waits = new ApprovalWaits(undefined, () => undefined, NEVER_BY_ITSELF);
    const stop = new AbortController();
    cleanups.push(async () => stop.abort());
    let otherWoke = false;
    void waits.wait(8, stop.signal).then(() => (otherWoke = true));
    const waited = waits.wait(7, stop.signal);
    waits.answered(7);
    await waited;
    expect(otherWoke).toBe(false);
  });

  it.runIf(storeKinds().includes('postgres'))('an answer taken by another worker wakes the owner through LISTEN/NOTIFY [postgres]', { timeout: 60_000 }, async () => {
    const opened: TestDataSource = await openTestDataSource('postgres');
    const second = await openClawDataSource(opened.location);
    const wakeups: Wakeups[] = [await openWakeups(opened.dataSource, () => undefined), await openWakeups(second, () => undefined)];
    cleanups.push(async () => {
      for (const wakeup of wakeups) await wakeup.close();
      await second.destroy();
      await opened.close();
    });
    // The owner hears only targeted wake-ups (a NOTIFY), not the fallback's "check everything".
    const listen = wakeups[0]!;
    const notifiedOnly: Wakeups = {
      notifies: true,
      on: (channel, listener) => listen.on(channel, async (targets) => (targets ? listener(targets) : undefined)),
      listening: () => listen.listening(),
      notify: (channel, payload) => listen.notify(channel, payload),
      along: (channel, payload) => listen.along(channel, payload),
      close: () => listen.close(),
    };
    const owner = new ApprovalWaits(notifiedOnly, () => undefined, NEVER_BY_ITSELF);
    const other = new ApprovalWaits(wakeups[1], () => undefined, NEVER_BY_ITSELF);
    const stop = new AbortController();
    cleanups.push(async () => stop.abort());
    const waited = owner.wait(42, stop.signal);
    await listen.listening();
    let woke = false;
    void waited.then(() => (woke = true));
    other.answered(42);
    // Neither the owner's own read (NEVER_BY_ITSELF) nor the fallback check can wake it: only the NOTIFY.
    const deadline = Date.now() + 30_000;
    while (!woke && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(woke).toBe(true);
  });

  it('without notifications between workers (SQLite) a waiter polls the store', async () => {
    const polling: Wakeups = { notifies: false, on: () => undefined, listening: async () => undefined, notify: async () => undefined, along: () => undefined, close: async () => undefined };
    expect(new ApprovalWaits(polling, () => undefined).fallbackMs).toBeLessThan(new ApprovalWaits(undefined, () => undefined).fallbackMs);
  });
});
