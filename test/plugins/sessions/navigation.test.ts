import { expect, it } from 'vitest';

import { failure, assistant, msg, openTestStoreOn, sessionWith, texts, toolResult, user } from './helpers.js';
import { describeStores } from '../../support/stores.js';

/** u1 a1 u2 a2(call c1) r(c1) a3 u3 a4 — messages 1..8; checkpoint 4 splits c1 from its result. */
const conversation = [
  msg(user('one')),
  msg(assistant('first')),
  msg(user('two')),
  msg(assistant('', [{ id: 'c1', name: 'ls' }])),
  msg(toolResult('c1', 'ls', 'files')),
  msg(assistant('listed')),
  msg(user('three')),
  msg(assistant('third')),
];

describeStores('session store navigation', (kind) => {
  it('appends under the leaf and builds the context root → leaf with entry ids, counting messages and titling the session', async () => {
    const { store } = await openTestStoreOn(kind);
    const id = await sessionWith(store, conversation.slice(0, 2));
    const appended = await store.append(id, [{ kind: 'model_change', payload: { model: 'faux/other' } }, msg(user('two'))]);
    expect(appended.map((e) => e.kind)).toEqual(['model_change', 'message']);
    expect(appended[0]!.parentId).toBeGreaterThan(0);
    expect(appended[1]!.parentId).toBe(appended[0]!.id);
    const context = await store.context(id);
    expect(texts(context.messages)).toEqual(['u:one', 'a:first', 'u:two']);
    expect(context.entryIds[2]).toBe(appended[1]!.id);
    expect(context.session).toMatchObject({ leafEntryId: appended[1]!.id, messageCount: 3, summary: 'one' });
    expect(context.state).toEqual({ model: 'faux/test', thinking: null, skills: [], plan: null, extensionEntries: {} });
    expect((await store.path(id)).map((e) => e.kind)).toEqual(['message', 'message', 'model_change', 'message']);
  });

  it('compact: writes the recovery label and the compaction beside it; branching to the label restores the full path', async () => {
    const { store } = await openTestStoreOn(kind);
    const id = await sessionWith(store, conversation);
    const before = await store.context(id);
    const leaf = before.session.leafEntryId;
    const written = await store.compact(id, { summary: 'S1', firstKeptEntryId: before.entryIds[6]!, tokensBefore: 40, tokensAfter: 12, details: { files: ['a.ts'] }, expectedLeafEntryId: leaf });
    expect(written).toMatchObject({ number: 1, recovery: { kind: 'label', parentId: leaf, payload: { targetEntryId: leaf, label: 'Before compaction #1' } } });
    expect(written.compaction).toMatchObject({ kind: 'compaction', parentId: leaf, payload: { summary: 'S1', recoveryEntryId: written.recovery.id, tokensBefore: 40, tokensAfter: 12 } });
    const after = await store.context(id);
    expect(texts(after.messages)).toEqual(['u:Summary of the earlier part of this conversation (compacted):\n\nS1', 'u:three', 'a:third']);
    expect(after.compaction).toEqual({ summary: 'S1', details: { files: ['a.ts'] }, count: 1 });
    expect(after.session).toMatchObject({ leafEntryId: written.compaction.id, messageCount: 8 });

    // A stale leaf or a kept entry off the path is refused, and nothing is written.
    expect((await failure(store.compact(id, { summary: 'S2', firstKeptEntryId: before.entryIds[6]!, tokensBefore: 1, tokensAfter: 1, expectedLeafEntryId: leaf }))).code).toBe('STALE');
    expect((await failure(store.compact(id, { summary: 'S2', firstKeptEntryId: written.recovery.id, tokensBefore: 1, tokensAfter: 1, expectedLeafEntryId: written.compaction.id }))).code).toBe('INVALID_ARGUMENT');
    expect((await failure(store.compact(id, { summary: ' ', firstKeptEntryId: before.entryIds[6]!, tokensBefore: 1, tokensAfter: 1, expectedLeafEntryId: written.compaction.id }))).code).toBe('INVALID_ARGUMENT');

    await store.branch(id, written.recovery.id);
    const restored = await store.context(id);
    expect(restored.messages).toEqual(before.messages);
    expect(restored.compaction).toBeNull();
  });

  it('applies the latest compaction: its summary first, then the kept messages from firstKeptEntryId, then later ones', async () => {
    const { store } = await openTestStoreOn(kind);
    const id = await sessionWith(store, conversation.slice(0, 4));
    const path = await store.path(id);
    await store.append(id, [{ kind: 'compaction', payload: { summary: 'old stuff', firstKeptEntryId: null } }, msg(toolResult('c1', 'ls', 'files'))]);
    // a later compaction keeps from message 3 ("two") on
    await store.append(id, [{ kind: 'compaction', payload: { summary: 'newer stuff', firstKeptEntryId: path[2]!.id } }, msg(assistant('after'))]);
    const context = await store.context(id);
    expect(texts(context.messages)).toEqual([
      'u:Summary of the earlier part of this conversation (compacted):\n\nnewer stuff',
      'u:two',
      'a:[c1]',
      'r:c1=files',
      'a:after',
    ]);
    expect(context.entryIds[0]).toBeNull();
  });

  it('keeps from a first kept entry that is not a message, and ignores entries of abandoned branches after a compaction', async () => {
    const { store } = await openTestStoreOn(kind);
    const id = await sessionWith(store, [msg(user('one')), msg(assistant('first'))]);
    const [change] = await store.append(id, [{ kind: 'model_change', payload: { model: 'faux/b' } }, msg(user('two')), msg(assistant('second'))]);
    await store.append(id, [{ kind: 'compaction', payload: { summary: 'S', firstKeptEntryId: change!.id } }, msg(user('three'))]);
    const leaf = (await store.getSession(id)).leafEntryId!;
    await store.append(id, [msg(assistant('abandoned'))]);
    await store.branch(id, leaf);
    await store.append(id, [msg(assistant('kept'))]);
    const context = await store.context(id);
    expect(texts(context.messages)).toEqual([
      'u:Summary of the earlier part of this conversation (compacted):\n\nS',
      'u:two',
      'a:second',
      'u:three',
      'a:kept',
    ]);
    expect(context.entryIds.slice(1)).toEqual((await store.path(id)).filter((e) => e.kind === 'message').slice(2).map((e) => e.id));
  });

  it('carries a branch summary into the context of the branch it was written on', async () => {
    const { store } = await openTestStoreOn(kind);
    const id = await sessionWith(store, conversation.slice(0, 3));
    const [first] = await store.path(id);
    await store.branch(id, first!.id);
    await store.append(id, [{ kind: 'branch_summary', payload: { fromEntryId: first!.id + 2, summary: 'we tried two' } }, msg(user('again'))]);
    expect(texts((await store.context(id)).messages)).toEqual(['u:one', 'u:Summary of a branch this conversation came back from:\n\nwe tried two', 'u:again']);
  });

  it('creates, activates and resumes sessions only against the expected active session (STALE otherwise)', async () => {
    const { store } = await openTestStoreOn(kind);
    const first = await sessionWith(store, []);
    let group = await store.getGroup('main');
    expect(group).toMatchObject({ activeSessionId: first, revision: 1 });
    const stale = await failure(store.createSession('main', { model: 'faux/test', activate: true }, { expectedActiveSessionId: null }));
    expect(stale.code).toBe('STALE');
    expect(stale.message).toContain(first);
    expect((await store.listSessions('main')).length).toBe(1);
    const second = await store.createSession('main', { model: 'faux/test', activate: true }, { expectedActiveSessionId: first });
    group = await store.getGroup('main');
    expect(group).toMatchObject({ activeSessionId: second.id, revision: 2 });
    // a client that still believes `first` is active cannot resume on top of `second`
    expect((await failure(store.activate('main', first, { expectedActiveSessionId: first }))).code).toBe('STALE');
    expect((await store.getGroup('main')).activeSessionId).toBe(second.id);
    expect(await store.activate('main', first, { expectedActiveSessionId: second.id })).toMatchObject({ activeSessionId: first, revision: 3 });
    expect((await failure(store.createSession('nope', { model: 'faux/test' }))).code).toBe('NOT_FOUND');
  });

  it('lists checkpoints 1-based with the ones inside a tool batch marked invalid', async () => {
    const { store } = await openTestStoreOn(kind);
    const id = await sessionWith(store, conversation);
    const checkpoints = await store.checkpoints(id);
    expect(checkpoints.map((c) => [c.index, c.role, c.valid])).toEqual([
      [1, 'user', true],
      [2, 'assistant', true],
      [3, 'user', true],
      [4, 'assistant', false],
      [5, 'toolResult', true],
      [6, 'assistant', true],
      [7, 'user', true],
      [8, 'assistant', true],
    ]);
    expect(checkpoints[3]!.preview).toBe('[ls]');
  });

  it('forks at a 1-based checkpoint: the first N messages, parent and fork point recorded, state copied, activated', async () => {
    const { store } = await openTestStoreOn(kind);
    const id = await sessionWith(store, conversation);
    await store.updateState(id, { skills: ['review'], plan: { step: 1 } });
    const path = await store.path(id);
    const fork = await store.fork(id, 3, { expectedActiveSessionId: id });
    expect(fork).toMatchObject({ parentSessionId: id, messageCount: 3, summary: 'one' });
    expect(fork.forkEntryId).toBe(path[2]!.id);
    expect(texts((await store.context(fork.id)).messages)).toEqual(['u:one', 'a:first', 'u:two']);
    expect((await store.getState(fork.id)).skills).toEqual(['review']);
    expect((await store.getGroup('main')).activeSessionId).toBe(fork.id);
    // the source is untouched
    expect((await store.context(id)).messages.length).toBe(8);
  });

  it('refuses to fork, goto or branch inside a tool batch, naming the index or entry and why', async () => {
    const { store } = await openTestStoreOn(kind);
    const id = await sessionWith(store, conversation);
    const before = await store.getSession(id);
    const fork = await failure(store.fork(id, 4));
    expect(fork.code).toBe('INVALID_ARGUMENT');
    expect(fork.message).toMatch(/checkpoint 4 .*tool call "c1" \(ls\)/);
    const goto = await failure(store.goto(id, 4));
    expect(goto.message).toMatch(/checkpoint 4/);
    expect((await failure(store.goto(id, 9))).message).toMatch(/checkpoint 9 does not exist: the session has 8 messages/);
    expect((await failure(store.goto(id, 0))).code).toBe('INVALID_ARGUMENT');
    const path = await store.path(id);
    const branch = await failure(store.branch(id, path[3]!.id));
    expect(branch.message).toMatch(new RegExp(`entry ${path[3]!.id} is inside a tool batch`));
    expect(await store.getSession(id)).toEqual(before);
    expect((await store.listSessions('main')).length).toBe(1);
  });

  it('goto moves the leaf back, keeping later entries in the tree; the next append starts a branch', async () => {
    const { store } = await openTestStoreOn(kind);
    const id = await sessionWith(store, conversation);
    const moved = await store.goto(id, 2);
    expect(moved.messageCount).toBe(2);
    expect(texts((await store.context(id)).messages)).toEqual(['u:one', 'a:first']);
    await store.append(id, [msg(user('other way'))]);
    const { entries } = await store.tree(id);
    const childrenOf = (parentId: number | null) => entries.filter((entry) => entry.parentId === parentId);
    expect(childrenOf(null).length).toBe(1);
    const second = childrenOf(childrenOf(null)[0]!.id)[0]!;
    expect(childrenOf(second.id).map((n) => [texts([(n.payload as { message: never }).message])[0], n.onPath])).toEqual([
      ['u:two', false],
      ['u:other way', true],
    ]);
    // back to the first branch's end by entry id
    const oldLeaf = (await store.path(id)).length;
    expect(oldLeaf).toBe(3);
    let node = childrenOf(null)[0]!;
    while (childrenOf(node.id).length) node = childrenOf(node.id)[0]!;
    const back = await store.branch(id, node.id);
    expect(back.messageCount).toBe(8);
    expect(texts((await store.context(id)).messages).at(-1)).toBe('a:third');
  });

  it('branch refuses an entry of another session and an unknown entry', async () => {
    const { store } = await openTestStoreOn(kind);
    const id = await sessionWith(store, conversation.slice(0, 2));
    const other = await store.createSession('main', { model: 'faux/test' });
    const [entry] = await store.append(other.id, [msg(user('elsewhere'))]);
    expect((await failure(store.branch(id, entry!.id))).message).toContain(`belongs to session ${other.id}`);
    expect((await failure(store.branch(id, 99_999))).code).toBe('NOT_FOUND');
  });

  it('closes interrupted tool calls with explicit error results, in call order, so the context pairs every call', async () => {
    const { store } = await openTestStoreOn(kind);
    const id = await sessionWith(store, [
      msg(user('go')),
      msg(assistant('', [{ id: 'a', name: 'bash' }, { id: 'b', name: 'read' }, { id: 'c', name: 'write' }])),
      msg(toolResult('b', 'read', 'done')),
    ]);
    const closed = await store.closeInterruptedToolCalls(id);
    expect(closed.map((e) => (e.payload as { message: { toolCallId: string } }).message.toolCallId)).toEqual(['a', 'c']);
    const context = await store.context(id);
    const last = context.messages.at(-1)!;
    expect(last).toMatchObject({ role: 'toolResult', toolCallId: 'c', toolName: 'write', isError: true });
    expect(JSON.stringify(last)).toMatch(/interrupted before its result was recorded; its effects are unknown/);
    expect((await store.checkpoints(id)).at(-1)!.valid).toBe(true);
    expect(await store.closeInterruptedToolCalls(id)).toEqual([]);
  });

  it('updates state in one step with the model and thinking changes recorded as entries', async () => {
    const { store } = await openTestStoreOn(kind);
    const id = await sessionWith(store, [msg(user('hi'))]);
    const state = await store.updateState(id, { model: 'faux/big', thinking: 'high' });
    expect(state).toMatchObject({ model: 'faux/big', thinking: 'high' });
    expect((await store.path(id)).map((e) => e.kind)).toEqual(['message', 'model_change', 'thinking_change']);
    await store.updateState(id, { skills: ['a'] });
    expect((await store.path(id)).length).toBe(3);
    expect((await failure(store.updateState(id, { bogus: 1 } as never))).code).toBe('INVALID_ARGUMENT');
  });

  it('refuses malformed entries before writing anything', async () => {
    const { store } = await openTestStoreOn(kind);
    const id = await sessionWith(store, [msg(user('hi'))]);
    const bad = await failure(store.append(id, [msg(user('ok')), { kind: 'message', payload: { message: { role: 'robot' } } } as never]));
    expect(bad.message).toMatch(/entry 2 \(message\)/);
    expect((await store.path(id)).length).toBe(1);
  });
});
