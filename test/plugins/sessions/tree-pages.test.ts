import { expect, it } from 'vitest';
import { ErrorCodes, LIMITS } from '../../../core/index.js';
import { readWholeTree, treeOutline, type TreeEntry, type TreePage } from '../../../plugins/sessions/index.js';
import { describeStores } from '../../support/stores.js';
import { assistant, failure, msg, openTestStoreOn, sessionWith, user } from './helpers.js';

describeStores('session tree pages', (kind) => {
  it('pages a session flat by cursor and limit, each entry with its parent and whether it is on the path', async () => {
    const { store } = await openTestStoreOn(kind);
    const id = await sessionWith(store, [msg(user('one')), msg(assistant('a1')), msg(user('two')), msg(assistant('a2')), msg(user('three'))]);
    await store.goto(id, 2);
    await store.append(id, [msg(user('other'))]);

    const first = await store.tree(id, { limit: 4 });
    expect(first.entries.map((entry) => entry.parentId)).toEqual([null, first.entries[0]!.id, first.entries[1]!.id, first.entries[2]!.id]);
    expect(first.nextCursor).toBe(first.entries[3]!.id);
    const second = await store.tree(id, { cursor: first.nextCursor!, limit: 4 });
    expect(second.nextCursor).toBeNull();
    const entries = [...first.entries, ...second.entries];
    expect(entries).toHaveLength(6);
    // The leaf is "other", under the first answer: one, a1, other are on the path.
    expect(entries.filter((entry) => entry.onPath).map((entry) => entry.id)).toEqual([entries[0]!.id, entries[1]!.id, entries[5]!.id]);
    expect(entries[5]!.parentId).toBe(entries[1]!.id);
    expect(second.leafEntryId).toBe(entries[5]!.id);

    expect((await failure(store.tree(id, { limit: LIMITS.clawTreeEntriesPerPage + 1 }))).code).toBe(ErrorCodes.LIMIT_EXCEEDED);
    expect((await failure(store.tree(id, { limit: 0 }))).code).toBe(ErrorCodes.INVALID_ARGUMENT);
  });

  it('ends a page before its payloads pass the page budget, and always carries one entry', async () => {
    const { store } = await openTestStoreOn(kind);
    // Each a little over a third of the budget: two fit a page, the third starts the next one.
    const big = 'é'.repeat(Math.ceil(LIMITS.clawTreePageBytes / 6) + 10);
    const id = await sessionWith(store, [msg(user(big)), msg(user(big)), msg(user(big))]);
    const first = await store.tree(id);
    expect(first.entries).toHaveLength(2);
    const second = await store.tree(id, { cursor: first.nextCursor! });
    expect(second.entries).toHaveLength(1);
    expect(second.nextCursor).toBeNull();
    expect((await readWholeTree((next) => store.tree(id, { cursor: next?.cursor }))).entries).toHaveLength(3);
  });
});

const entry = (id: number, parentId: number | null): TreeEntry => ({ id, parentId, sessionId: 's', kind: 'label', payload: { targetEntryId: id, label: null }, createdAt: 0, onPath: false });
const page = (entries: TreeEntry[], nextCursor: number | null, leafEntryId: number | null = null): TreePage => ({ sessionId: 's', leafEntryId, entries, nextCursor });

it('reads a whole tree, marking the path from the last page leaf, and stops a reader that does not move on or goes over the bound', async () => {
  const pages = [page([entry(1, null), entry(2, 1)], 2, 2), page([entry(3, 1)], null, 3)];
  const whole = await readWholeTree(async (next) => pages[next ? 1 : 0]!);
  expect(whole.entries.map((e) => [e.id, e.onPath])).toEqual([
    [1, true],
    [2, false],
    [3, true],
  ]);
  expect((await failure(readWholeTree(async () => page([entry(1, null)], 1)))).code).toBe(ErrorCodes.INVALID_STATE);
  let next = 0;
  const endless = async (): Promise<TreePage> => {
    const entries = Array.from({ length: 1000 }, () => entry(++next, next > 1 ? next - 1 : null));
    return page(entries, next);
  };
  expect((await failure(readWholeTree(endless))).code).toBe(ErrorCodes.LIMIT_EXCEEDED);
});

it('outlines a long chain at one depth and indents the branches of a fork, without recursion', () => {
  const chain = Array.from({ length: 50_000 }, (_, i) => entry(i + 1, i === 0 ? null : i));
  const outline = treeOutline([...chain, entry(50_001, 2)]);
  expect(outline).toHaveLength(50_001);
  expect(outline.slice(0, 2).map((line) => line.depth)).toEqual([0, 0]);
  expect(outline[2]).toMatchObject({ entry: { id: 3 }, depth: 1 });
  expect(outline.at(-1)).toMatchObject({ entry: { id: 50_001 }, depth: 1 });
});
