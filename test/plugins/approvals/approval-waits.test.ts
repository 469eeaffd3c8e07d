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
    const owner = new ApprovalWaits(wakeups[0], () => undefined, NEVER_BY_ITSELF);
    const other = new ApprovalWaits(wakeups[1], () => undefined, NEVER_BY_ITSELF);
    const stop = new AbortController();
    cleanups.push(async () => stop.abort());
    const waited = owner.wait(42, stop.signal);
    // The owner's LISTEN may still be on its way: answer until the wake-up arrives (each answer is a fresh NOTIFY).
    let woke = false;
    void waited.then(() => (woke = true));
    const deadline = Date.now() + 30_000;
    while (!woke && Date.now() < deadline) {
      other.answered(42);
      await Promise.race([waited, new Promise((resolve) => setTimeout(resolve, 250))]);
    }
    expect(woke).toBe(true);
  });

  it('without notifications between workers (SQLite) a waiter polls the store', async () => {
    const polling: Wakeups = { notifies: false, on: () => undefined, notify: async () => undefined, along: () => undefined, close: async () => undefined };
    expect(new ApprovalWaits(polling, () => undefined).fallbackMs).toBeLessThan(new ApprovalWaits(undefined, () => undefined).fallbackMs);
  });
});
