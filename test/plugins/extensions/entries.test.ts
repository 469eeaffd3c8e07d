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
});
