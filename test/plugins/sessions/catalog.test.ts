import { expect, it } from 'vitest';
import { LIMITS } from '../../../core/index.js';
import { failure, msg, openTestStoreOn, sessionWith, user } from './helpers.js';
import { describeStores } from '../../support/stores.js';

describeStores('session catalog', (kind) => {
  it('sets, keeps and clears names within the byte limit; 257 bytes are refused and the old name stays', async () => {
    const { store } = await openTestStoreOn(kind);
    const id = await sessionWith(store, []);
    const max = 'é'.repeat(LIMITS.clawSessionNameBytes / 2);
    expect((await store.setName(id, max)).name).toBe(max);
    const over = await failure(store.setName(id, `${max}x`));
    expect(over.code).toBe('LIMIT_EXCEEDED');
    expect(over.message).toMatch(/257 UTF-8 bytes, over the 256-byte limit/);
    expect((await store.getSession(id)).name).toBe(max);
    expect((await store.setName(id, null)).name).toBeNull();
  });

  it('refuses control, line-separator and bidi characters, and empty names', async () => {
    const { store } = await openTestStoreOn(kind);
    const id = await sessionWith(store, []);
    for (const [name, code] of [
      ['evil\u202Egnp.exe', 'U+202E'],
      ['a\u2066b', 'U+2066'],
      ['mark\u200F', 'U+200F'],
      ['arabic\u061C', 'U+061C'],
      ['line\nbreak', 'U+000A'],
      ['esc\u001b[31m', 'U+001B'],
      ['c1\u0085', 'U+0085'],
      ['del\u007f', 'U+007F'],
      ['sep\u2028', 'U+2028'],
    ] as const) {
      const error = await failure(store.setName(id, name));
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.message).toContain(code);
    }
    expect((await failure(store.setName(id, '   '))).message).toMatch(/empty/);
    expect((await failure(store.setName(id, ''))).message).toMatch(/empty/);
    expect((await store.getSession(id)).name).toBeNull();
    expect((await failure(store.createSession('main', { model: 'm', name: 'x\u202Ay' }))).code).toBe('INVALID_ARGUMENT');
  });

  it('searches literally and case-insensitively, names before summaries, archived only when asked', async () => {
    const { store } = await openTestStoreOn(kind);
    await store.ensureGroup('main');
    const bySummary = await store.createSession('main', { model: 'm' });
    await store.append(bySummary.id, [msg(user('Fix the Deploy script please'))]);
    const byName = await store.createSession('main', { model: 'm', name: 'deploy notes' });
    const unicode = await store.createSession('main', { model: 'm', name: 'ÄRGER mit Über' });
    const wildcard = await store.createSession('main', { model: 'm', name: '100% done_ok' });
    await store.createSession('main', { model: 'm', name: '100 percent doneXok' });
    // the summary match is the most recently updated, yet the name match comes first
    await store.append(bySummary.id, [msg(user('more'))]);
    expect((await store.searchSessions('main', 'DEPLOY')).map((s) => s.id)).toEqual([byName.id, bySummary.id]);
    expect((await store.searchSessions('main', 'ärger')).map((s) => s.id)).toEqual([unicode.id]);
    expect((await store.searchSessions('main', '% done_')).map((s) => s.id)).toEqual([wildcard.id]);
    expect(await store.searchSessions('main', 'nothing like it')).toEqual([]);
    await store.archive(byName.id);
    expect((await store.searchSessions('main', 'deploy')).map((s) => s.id)).toEqual([bySummary.id]);
    expect((await store.searchSessions('main', 'deploy', { includeArchived: true })).map((s) => s.id)).toEqual([byName.id, bySummary.id]);
    expect((await failure(store.searchSessions('main', ' '))).code).toBe('INVALID_ARGUMENT');
    expect((await failure(store.searchSessions('main', 'x'.repeat(LIMITS.clawSearchQueryBytes + 1)))).code).toBe('LIMIT_EXCEEDED');
  });

  it('lists newest first, pages, and archives: an archived active session leaves the group without one; activate un-archives', async () => {
    const { store } = await openTestStoreOn(kind);
    const first = await sessionWith(store, [msg(user('a'))]);
    const second = await store.createSession('main', { model: 'm' });
    expect((await store.listSessions('main')).map((s) => s.id)).toEqual([second.id, first]);
    expect((await store.listSessions('main', { limit: 1, offset: 1 })).map((s) => s.id)).toEqual([first]);
    const revision = (await store.getGroup('main')).revision;
    const archived = await store.archive(first);
    expect(archived.archived).toBe(true);
    expect(await store.getGroup('main')).toEqual({ name: 'main', activeSessionId: null, revision: revision + 1 });
    expect((await store.listSessions('main')).map((s) => s.id)).toEqual([second.id]);
    expect((await store.listSessions('main', { includeArchived: true })).length).toBe(2);
    await store.activate('main', first, { expectedActiveSessionId: null });
    expect((await store.getSession(first)).archived).toBe(false);
    expect((await failure(store.listSessions('main', { limit: LIMITS.clawSessionsPerPage + 1 }))).code).toBe('LIMIT_EXCEEDED');
    // a session keeps its metadata across archive and activation
    expect((await store.getSession(first)).summary).toBe('a');
  });

  it('knows groups by name and refuses invalid ones', async () => {
    const { store } = await openTestStoreOn(kind);
    await store.ensureGroup('b');
    await store.ensureGroup('a');
    await store.ensureGroup('a');
    expect((await store.listGroups()).map((g) => g.name)).toEqual(['a', 'b']);
    expect((await failure(store.ensureGroup('Bad Name'))).code).toBe('INVALID_ARGUMENT');
    expect((await failure(store.getGroup('zzz'))).code).toBe('NOT_FOUND');
  });
});
