import { describe, expect, it } from 'vitest';
import { sessionEntries, ENTRY_TYPE_PREFIX } from '../../../plugins/extensions/index.js';
import { openTestStore } from '../sessions/helpers.js';

describe('extension entries in the session store', () => {
  it('commits each entry as a custom entry, refuses the 129th and an oversized one, and keeps the store unchanged on refusal', async () => {
    const { store } = await openTestStore();
    await store.ensureGroup('main');
    const session = await store.createSession('main', { model: 'faux/demo' });
    const entries = sessionEntries(store, () => session.id);
    const receipts = await Promise.all(Array.from({ length: 128 }, (_, index) => entries.append('guard', 'note', { index })));
    expect(new Set(receipts.map((receipt) => receipt.id)).size).toBe(128);
    const stored = (await store.path(session.id)).filter((entry) => entry.kind === 'custom');
    expect(stored).toHaveLength(128);
    expect(stored[5]!.payload).toEqual({ type: `${ENTRY_TYPE_PREFIX}guard:note`, data: { index: 5 } });
    await expect(entries.append('guard', 'note', { index: 128 })).rejects.toThrow(/already holds 128 extension entries/);
    expect((await store.path(session.id)).filter((entry) => entry.kind === 'custom')).toHaveLength(128);

    const other = await store.createSession('main', { model: 'faux/demo' });
    const big = sessionEntries(store, () => other.id);
    await expect(big.append('guard', 'blob', 'x'.repeat(16 * 1024))).rejects.toThrow(/over the 16384-byte limit/);
    // 512 KiB in total: 33 entries of ~16,000 bytes do not fit.
    for (let i = 0; i < 32; i++) await big.append('guard', 'blob', 'y'.repeat(16_000));
    await expect(big.append('guard', 'blob', 'y'.repeat(16_000))).rejects.toThrow(/over the 524288-byte limit/);
    await expect(sessionEntries(store, () => null).append('guard', 'x', 1)).rejects.toThrow(/no active session/);
  });

  it('lets exactly one of several parallel appends at the limit through, from separate sinks too', async () => {
    const { store } = await openTestStore();
    await store.ensureGroup('main');
    const session = await store.createSession('main', { model: 'faux/demo' });
    // Two sinks on one store stand for two hosts (group kernels, workers) appending to one session.
    const [first, second] = [sessionEntries(store, () => session.id), sessionEntries(store, () => session.id)];
    for (let i = 0; i < 127; i++) await first.append('guard', 'fill', { i });
    const outcomes = await Promise.allSettled(Array.from({ length: 6 }, (_, index) => (index % 2 ? first : second).append('guard', 'race', { index })));
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    const refused = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    expect(refused).toHaveLength(5);
    for (const outcome of refused) expect(String(outcome.reason)).toMatch(/already holds 128 extension entries/);
    expect((await store.path(session.id)).filter((entry) => entry.kind === 'custom')).toHaveLength(128);
  });

  it('checks the byte total in the same transaction as the append', async () => {
    const { store } = await openTestStore();
    await store.ensureGroup('main');
    const session = await store.createSession('main', { model: 'faux/demo' });
    const entries = sessionEntries(store, () => session.id);
    for (let i = 0; i < 32; i++) await entries.append('guard', 'blob', 'y'.repeat(16_000));
    // 512,000 + 2 * 12,000 > 524,288, but either one alone fits: only one of the parallel pair may land.
    const outcomes = await Promise.allSettled([entries.append('guard', 'blob', 'z'.repeat(12_000)), entries.append('guard', 'blob', 'w'.repeat(12_000))]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(String((outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult).reason)).toMatch(/over the 524288-byte limit/);
  });
});

describe('extension entries read back', () => {
  it("lists an extension's own entries on the session path, oldest first, and none of another extension's", async () => {
    const { store } = await openTestStore();
    await store.ensureGroup('main');
    const session = await store.createSession('main', { model: 'faux/demo' });
    const entries = sessionEntries(store, () => session.id);
    const first = await entries.append('guard', 'note', { n: 1 });
    await entries.append('other', 'note', { n: 2 });
    const third = await entries.append('guard', 'tally', [3]);
    expect(await entries.list('guard')).toEqual([
      { id: first.id, kind: 'note', data: { n: 1 } },
      { id: third.id, kind: 'tally', data: [3] },
    ]);
    expect(await sessionEntries(store, () => null).list('guard')).toEqual([]);
  });
});
