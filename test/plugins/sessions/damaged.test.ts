/**
 * A damaged store is refused, never misread: a payload that is not JSON (or
 * not the shape of its kind), a leaf or parent id naming no entry, a state
 * column that does not decode. Each is STORE_CORRUPT naming the store's
 * file, the session and the entry, and the rest of the store still reads.
 */
import { describe, expect, it } from 'vitest';
import { assistant, failure, msg, openTestStore, sessionWith, texts, user, type TestStore } from './helpers.js';

const conversation = [msg(user('one')), msg(assistant('first')), msg(user('two')), msg(assistant('second'))];

/** A store with the damaged session (active in "main") and an intact one (in group "other"). */
async function twoSessions(): Promise<{ test: TestStore; damaged: string; intact: string; entries: number[] }> {
  const test = await openTestStore();
  const damaged = await sessionWith(test.store, conversation);
  await test.store.ensureGroup('other');
  const intact = (await test.store.createSession('other', { model: 'faux/test', activate: true }, { expectedActiveSessionId: null })).id;
  await test.store.append(intact, [msg(user('fine')), msg(assistant('still fine'))]);
  const entries = (await test.store.path(damaged)).map((entry) => entry.id);
  // What a failing disk or a hand edit can do: the foreign keys do not hold it back.
  await test.dataSource.query('PRAGMA foreign_keys = OFF');
  return { test, damaged, intact, entries };
}

async function expectCorrupt(promise: Promise<unknown>, file: string, ...parts: string[]): Promise<void> {
  const error = await failure(promise);
  expect(error.code).toBe('STORE_CORRUPT');
  expect(error.message).toContain(`the claw store ${file} is damaged: `);
  for (const part of parts) expect(error.message).toContain(part);
  expect(error.hint).toContain('restore it from a backup');
}

describe('a damaged session store', () => {
  it('refuses an entry payload that is not JSON, naming the file, the session and the entry; other sessions still read', async () => {
    const { test, damaged, intact, entries } = await twoSessions();
    await test.dataSource.query('UPDATE claw_entries SET payload = ? WHERE id = ?', ['{not json', entries[1]]);
    const where = [`session ${damaged}: entry ${entries[1]} (message): the payload is not JSON`];
    await expectCorrupt(test.store.context(damaged), test.file, ...where);
    await expectCorrupt(test.store.path(damaged), test.file, ...where);
    await expectCorrupt(test.store.tree(damaged), test.file, ...where);
    await expectCorrupt(test.store.checkpoints(damaged), test.file, ...where);
    await expectCorrupt(test.store.fork(damaged, 2), test.file, ...where);
    expect(texts((await test.store.context(intact)).messages)).toEqual(['u:fine', 'a:still fine']);
  });

  it('refuses a JSON payload that does not fit its kind', async () => {
    const { test, damaged, entries } = await twoSessions();
    await test.dataSource.query('UPDATE claw_entries SET payload = ? WHERE id = ?', ['{"message": {"role": "robot"}}', entries[2]]);
    await expectCorrupt(test.store.context(damaged), test.file, `session ${damaged}: entry ${entries[2]} (message): the payload does not fit its kind (message`);
  });

  it('refuses a message that is well formed JSON but breaks its schema one level down, as zod words it', async () => {
    const { test, damaged, entries } = await twoSessions();
    const message = { role: 'assistant', content: [{ type: 'text', text: 'x' }], model: 'faux/test', usage: { input: -1, output: 0 }, stopReason: 'stop', timestamp: 1 };
    await test.dataSource.query('UPDATE claw_entries SET payload = ? WHERE id = ?', [JSON.stringify({ message }), entries[1]]);
    await expectCorrupt(test.store.context(damaged), test.file, `session ${damaged}: entry ${entries[1]} (message): the payload does not fit its kind (message.usage.input: `);
    const extra = { role: 'user', content: [{ type: 'text', text: 'x', bold: true }], timestamp: 1 };
    await test.dataSource.query('UPDATE claw_entries SET payload = ? WHERE id = ?', [JSON.stringify({ message: extra }), entries[1]]);
    await expectCorrupt(test.store.path(damaged), test.file, `session ${damaged}: entry ${entries[1]} (message): the payload does not fit its kind (message.content`);
  });

  it('refuses a leaf that points at a missing entry', async () => {
    const { test, damaged, intact } = await twoSessions();
    await test.dataSource.query('UPDATE claw_sessions SET leaf_entry_id = 99999 WHERE id = ?', [damaged]);
    const where = `session ${damaged}: its leaf entry 99999 is missing`;
    await expectCorrupt(test.store.context(damaged), test.file, where);
    await expectCorrupt(test.store.path(damaged), test.file, where);
    await expectCorrupt(test.store.checkpoints(damaged), test.file, where);
    await expectCorrupt(test.store.append(damaged, [msg(user('more'))]), test.file, where);
    expect((await test.store.context(intact)).messages).toHaveLength(2);
  });

  it('refuses a path whose parent link names a missing entry or an entry of another session', async () => {
    const { test, damaged, intact, entries } = await twoSessions();
    await test.dataSource.query('UPDATE claw_entries SET parent_id = 99999 WHERE id = ?', [entries[2]]);
    await expectCorrupt(test.store.context(damaged), test.file, `session ${damaged}: entry ${entries[2]} points at parent entry 99999, which is missing`);
    const [other] = (await test.store.path(intact)).map((entry) => entry.id);
    await test.dataSource.query('UPDATE claw_entries SET parent_id = ? WHERE id = ?', [other, entries[2]]);
    await expectCorrupt(test.store.path(damaged), test.file, `session ${damaged}: entry ${entries[2]} points at parent entry ${other}`);
  });

  it('refuses session state that does not decode', async () => {
    const { test, damaged } = await twoSessions();
    await test.dataSource.query("UPDATE claw_session_state SET skills = '[oops' WHERE session_id = ?", [damaged]);
    await expectCorrupt(test.store.getState(damaged), test.file, `session ${damaged}: the stored skills is not JSON`);
    await expectCorrupt(test.store.context(damaged), test.file, `session ${damaged}: the stored skills is not JSON`);
  });
});
