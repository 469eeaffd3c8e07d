import { expect, it } from 'vitest';

import { assistant, msg, openTestStoreOn, sessionWith, texts, user } from './helpers.js';
import { describeStores } from '../../support/stores.js';
import type { SessionStore } from '../../../plugins/sessions/index.js';

/** What a store that never read the session before builds: the reference every cached read must equal. */
async function cold(reopen: () => Promise<{ store: SessionStore }>, id: string) {
  const { store } = await reopen();
  const { messages, entryIds, compaction } = await store.context(id);
  return { messages, entryIds, compaction };
}

describeStores('session context cache', (kind) => {
  it('a second context() is the same as a cold read after appends here, writes by another store, goto and compaction', async () => {
    const opened = await openTestStoreOn(kind);
    const { store } = opened;
    const id = await sessionWith(store, [msg(user('one')), msg(assistant('first'))]);
    const same = async () => {
      const { messages, entryIds, compaction } = await store.context(id);
      expect({ messages, entryIds, compaction }).toEqual(await cold(opened.reopen, id));
      return messages;
    };
    expect(texts(await same())).toEqual(['u:one', 'a:first']);

    // Appended through this store: the cached context takes the new messages.
    await store.append(id, [msg(user('two')), msg(assistant('second'))]);
    expect(texts(await same())).toEqual(['u:one', 'a:first', 'u:two', 'a:second']);

    // Written by another store on the same database (another worker): the moved leaf is seen.
    const other = await opened.reopen();
    await other.store.append(id, [msg(user('three'))]);
    expect(texts(await same())).toEqual(['u:one', 'a:first', 'u:two', 'a:second', 'u:three']);
    await store.append(id, [msg(assistant('third'))]);
    expect(texts(await same())).toEqual(['u:one', 'a:first', 'u:two', 'a:second', 'u:three', 'a:third']);

    // A non-message entry, a goto and a compaction all move the leaf.
    await store.updateState(id, { model: 'faux/other' });
    expect(texts(await same())).toHaveLength(6);
    await store.goto(id, 2);
    expect(texts(await same())).toEqual(['u:one', 'a:first']);
    await store.append(id, [msg(user('again'))]);
    const before = await store.context(id);
    await store.compact(id, { summary: 'S', firstKeptEntryId: before.entryIds[2]!, tokensBefore: 9, tokensAfter: 3, expectedLeafEntryId: before.session.leafEntryId });
    const compacted = await same();
    expect(texts(compacted).at(-1)).toBe('u:again');
    expect(compacted).toHaveLength(2);
  });

  it('what a caller does to the arrays it got does not change the next context()', async () => {
    const { store } = await openTestStoreOn(kind);
    const id = await sessionWith(store, [msg(user('one')), msg(assistant('first'))]);
    const first = await store.context(id);
    first.messages.pop();
    first.entryIds.push(99);
    const second = await store.context(id);
    expect(texts(second.messages)).toEqual(['u:one', 'a:first']);
    expect(second.entryIds).toHaveLength(2);
  });
});
