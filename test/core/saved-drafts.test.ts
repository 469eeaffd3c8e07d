/**
 * The saved draft snapshots (core/saved-drafts.ts) on a real temp directory:
 * private files published whole and never over another, the per-group and
 * per-draft limits, validation that lists a damaged file as unreadable with
 * its fix, and concurrent saves serialized by the group's lock.
 */
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LIMITS } from '../../core/limits.js';
import { SavedDraftStore } from '../../core/saved-drafts.js';

let root: string;
let store: SavedDraftStore;
const groupDir = (group = 'main') => path.join(root, group);
const mode = (file: string) => fs.statSync(file).mode & 0o777;

beforeEach(() => {
  root = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'xdog-saved-drafts-')), 'saved-drafts');
  store = new SavedDraftStore(root);
});
afterEach(() => {
  vi.restoreAllMocks();
  fs.rmSync(path.dirname(root), { recursive: true, force: true });
});

describe('SavedDraftStore', () => {
  it('saves a child draft as one private file with its provenance and digest, and reads it back whole', async () => {
    const saved = await store.save({ group: 'main', kind: 'steer', child: 'c-1234', text: 'look in src/ too\nand in test/', sessionId: 's-1' });
    expect(saved).toMatchObject({ id: expect.stringMatching(/^d-[0-9a-f]{12}$/), group: 'main', kind: 'steer', child: 'c-1234', sessionId: 's-1', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const file = path.join(groupDir(), `${saved.id}.json`);
    expect(mode(root)).toBe(0o700);
    expect(mode(groupDir())).toBe(0o700);
    expect(mode(file)).toBe(0o600);
    // Published whole: no temp file or lock is left beside it.
    expect(fs.readdirSync(groupDir())).toEqual([`${saved.id}.json`]);
    expect(await store.read(saved.id)).toEqual(saved);
    const { drafts, unreadable } = await store.list('main');
    expect(unreadable).toEqual([]);
    expect(drafts).toEqual([{ id: saved.id, group: 'main', kind: 'steer', child: 'c-1234', bytes: 29, createdAt: saved.createdAt, sessionId: 's-1', firstLine: 'look in src/ too' }]);
  });

  it('never publishes over an existing snapshot: a name taken meanwhile is refused and the first file is unchanged', async () => {
    vi.spyOn(crypto, 'randomBytes').mockImplementation(((size: number) => Buffer.alloc(size, 7)) as typeof crypto.randomBytes);
    const first = await store.save({ group: 'main', kind: 'start', text: 'first task' });
    const before = fs.readFileSync(path.join(groupDir(), `${first.id}.json`), 'utf8');
    await expect(store.save({ group: 'main', kind: 'start', text: 'second task' })).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(fs.readFileSync(path.join(groupDir(), `${first.id}.json`), 'utf8')).toBe(before);
    expect(fs.readdirSync(groupDir())).toEqual([`${first.id}.json`]);
  });

  it('refuses a draft over the size limit, an empty one, and a steer without its child, writing nothing', async () => {
    await expect(store.save({ group: 'main', kind: 'parent', text: 'x'.repeat(LIMITS.savedDraftBytes + 1) })).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED', message: expect.stringContaining(`${LIMITS.savedDraftBytes}-byte limit`) });
    await expect(store.save({ group: 'main', kind: 'parent', text: '  \n' })).rejects.toMatchObject({ code: 'USAGE' });
    await expect(store.save({ group: 'main', kind: 'steer', text: 'no child' })).rejects.toMatchObject({ code: 'USAGE' });
    expect((await store.list()).drafts).toEqual([]);
    // Exactly the limit is kept, escaped control characters and all.
    const full = await store.save({ group: 'main', kind: 'parent', text: '\u0001'.repeat(LIMITS.savedDraftBytes) });
    expect((await store.read(full.id)).text).toHaveLength(LIMITS.savedDraftBytes);
  });

  it('keeps at most savedDraftsPerGroup drafts a group; the next save is refused with the fix, other groups unaffected', async () => {
    for (let i = 0; i < LIMITS.savedDraftsPerGroup; i++) await store.save({ group: 'main', kind: 'start', text: `task ${i}` });
    await expect(store.save({ group: 'main', kind: 'start', text: 'one more' })).rejects.toMatchObject({
      code: 'LIMIT_EXCEEDED',
      hint: expect.stringContaining('xdog claw agents drafts delete ID'),
    });
    expect((await store.list('main')).drafts).toHaveLength(LIMITS.savedDraftsPerGroup);
    await store.save({ group: 'other', kind: 'start', text: 'elsewhere' });
    const [oldest] = (await store.list('main')).drafts;
    await store.delete(oldest!.id);
    await store.save({ group: 'main', kind: 'start', text: 'after a delete' });
    expect((await store.list('main')).drafts.map((draft) => draft.firstLine)).toContain('after a delete');
  });

  it('concurrent saves are all kept, and the lock keeps them under the group limit', async () => {
    const texts = Array.from({ length: 12 }, (_, i) => `draft ${i}`);
    const saved = await Promise.all(texts.map((text) => store.save({ group: 'main', kind: 'parent', text })));
    expect(new Set(saved.map((draft) => draft.id)).size).toBe(12);
    expect((await store.list('main')).drafts.map((draft) => draft.firstLine).sort()).toEqual([...texts].sort());

    // Two saves racing for the last free place: one is kept, one refused.
    const more = LIMITS.savedDraftsPerGroup - 12 - 1;
    for (let i = 0; i < more; i++) await store.save({ group: 'main', kind: 'parent', text: `filler ${i}` });
    const race = await Promise.allSettled([store.save({ group: 'main', kind: 'parent', text: 'a' }), store.save({ group: 'main', kind: 'parent', text: 'b' })]);
    expect(race.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect((await store.list('main')).drafts).toHaveLength(LIMITS.savedDraftsPerGroup);
  });

  it("waits for another live process's lock and refuses with BUSY at the deadline; a dead process's lock is taken", async () => {
    fs.mkdirSync(groupDir(), { recursive: true, mode: 0o700 });
    fs.chmodSync(root, 0o700);
    fs.writeFileSync(path.join(groupDir(), '.lock'), String(process.ppid));
    await expect(store.save({ group: 'main', kind: 'start', text: 'blocked' })).rejects.toMatchObject({ code: 'BUSY', hint: expect.stringContaining('.lock') });
    expect((await store.list('main')).drafts).toEqual([]);

    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    fs.writeFileSync(path.join(groupDir(), '.lock'), String(dead));
    await store.save({ group: 'main', kind: 'start', text: 'after a crash' });
    expect(fs.existsSync(path.join(groupDir(), '.lock'))).toBe(false);
  });

  it('lists a damaged file as unreadable with its fix and never crashes the listing; read refuses it; delete removes it', async () => {
    const good = await store.save({ group: 'main', kind: 'follow-up', child: 'c-1', text: 'then write the test' });
    const edited = await store.save({ group: 'main', kind: 'start', text: 'original task' });
    const loose = await store.save({ group: 'main', kind: 'start', text: 'readable by others' });
    const file = (id: string) => path.join(groupDir(), `${id}.json`);
    fs.writeFileSync(file(edited.id), fs.readFileSync(file(edited.id), 'utf8').replace('original task', 'rm -rf ~'));
    fs.chmodSync(file(loose.id), 0o644);
    fs.writeFileSync(path.join(groupDir(), 'd-000000000000.json'), '{ not json', { mode: 0o600 });
    fs.writeFileSync(path.join(groupDir(), 'notes.json'), '{}', { mode: 0o600 });
    fs.symlinkSync(file(good.id), path.join(groupDir(), 'd-111111111111.json'));

    const { drafts, unreadable } = await store.list();
    expect(drafts.map((draft) => draft.id)).toEqual([good.id]);
    const problems = Object.fromEntries(unreadable.map((bad) => [path.basename(bad.file), bad]));
    expect(problems[`${edited.id}.json`]).toMatchObject({ id: edited.id, problem: expect.stringContaining('SHA-256 does not match'), hint: `xdog claw agents drafts delete ${edited.id}` });
    expect(problems[`${loose.id}.json`]).toMatchObject({ problem: expect.stringContaining('mode is 644'), hint: expect.stringContaining('chmod 600') });
    expect(problems['d-000000000000.json']).toMatchObject({ problem: expect.stringContaining('not valid JSON') });
    expect(problems['notes.json']).toMatchObject({ id: null, hint: `rm ${path.join(groupDir(), 'notes.json')}` });
    expect(problems['d-111111111111.json']).toMatchObject({ problem: expect.stringContaining('not a regular file') });

    await expect(store.read(edited.id)).rejects.toMatchObject({ code: 'INVALID_STATE', message: expect.stringContaining('SHA-256') });
    await expect(store.read('../../etc/passwd')).rejects.toMatchObject({ code: 'USAGE' });
    await expect(store.read('d-222222222222')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await store.delete('d-000000000000')).toBeNull();
    expect(await store.delete(good.id)).toMatchObject({ id: good.id, kind: 'follow-up' });
    expect(fs.existsSync(file(good.id))).toBe(false);
  });

  it('refuses a store directory others can read', async () => {
    await store.save({ group: 'main', kind: 'start', text: 'task' });
    fs.chmodSync(groupDir(), 0o755);
    await expect(store.list()).rejects.toMatchObject({ code: 'INVALID_STATE', hint: `chmod 700 ${groupDir()}` });
    await expect(store.save({ group: 'main', kind: 'start', text: 'task' })).rejects.toMatchObject({ code: 'INVALID_STATE' });
  });
});
