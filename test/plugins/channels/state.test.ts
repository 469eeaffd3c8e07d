/** The channel state port on a real claw store file: survives reopening, is per channel and type, and is bounded. */
import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../../core/index.js';
import { storedChannelState } from '../../../plugins/channels/index.js';
import { openTestStore } from '../sessions/helpers.js';

describe('channel state in the claw store', () => {
  it('keeps the last saved state per channel across a reopen, and hands none to another type', async () => {
    const first = await openTestStore();
    const wx = storedChannelState(first.store, first.clock, { id: 'wx', type: 'wechat' });
    expect(await wx.load()).toBeUndefined();
    await wx.save('12');
    await wx.save('19');
    await storedChannelState(first.store, first.clock, { id: 'other', type: 'wechat' }).save('3');
    await first.store.close();

    const second = await openTestStore(first.file);
    expect(await storedChannelState(second.store, second.clock, { id: 'wx', type: 'wechat' }).load()).toBe('19');
    expect(await storedChannelState(second.store, second.clock, { id: 'other', type: 'wechat' }).load()).toBe('3');
    // The same id now configured as another type starts fresh, and its first save replaces the row.
    const renamed = storedChannelState(second.store, second.clock, { id: 'wx', type: 'telegram' });
    expect(await renamed.load()).toBeUndefined();
    await renamed.save('offset-1');
    expect(await renamed.load()).toBe('offset-1');
    await second.store.close();
  });

  it('refuses a state over the limit and keeps the one before', async () => {
    const { store, clock } = await openTestStore();
    const state = storedChannelState(store, clock, { id: 'wx', type: 'wechat' });
    await state.save('7');
    await expect(state.save('x'.repeat(LIMITS.channelStateBytes + 1))).rejects.toThrow(/over the limit/);
    expect(await state.load()).toBe('7');
    await store.close();
  });
});
