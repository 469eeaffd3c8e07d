/**
 * `xdog claw agents drafts [show ID|delete ID]` through the built CLI, on
 * snapshots saved by the store the TUI uses (the TUI's own saving is in
 * claw-tui-drafts.test.ts): the listing shows metadata only and reports a
 * damaged file as unreadable with its fix, show prints one whole, delete
 * removes one. No gateway runs: the drafts are local files.
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { SavedDraftStore, savedDraftsDir, type SavedDraft } from '../../core/saved-drafts.js';
import { runCli } from '../support/cli.js';
import { tempDir } from '../support/temp.js';

let env: NodeJS.ProcessEnv;
let steer: SavedDraft;
let start: SavedDraft;
let parent: SavedDraft;
const drafts = (...args: string[]) => runCli(['claw', 'agents', 'drafts', ...args], { env });

describe('xdog claw agents drafts', () => {
  beforeAll(async () => {
    const root = tempDir('xdog-agents-drafts-');
    env = { XDG_STATE_HOME: path.join(root, 'state'), XDG_CONFIG_HOME: path.join(root, 'config'), XDG_DATA_HOME: path.join(root, 'data'), XDOG_CONFIG: path.join(root, 'none.yaml') };
    const store = new SavedDraftStore(savedDraftsDir(env));
    steer = await store.save({ group: 'main', kind: 'steer', child: 'c-1a2b3c4d', text: 'STEER-FIRST-LINE look in src/ too\nSECOND-LINE-NOT-LISTED', sessionId: 's-42' });
    start = await store.save({ group: 'main', kind: 'start', text: 'find the flaky test' });
    parent = await store.save({ group: 'ops', kind: 'parent', text: 'a prompt for later' });
  });

  it('lists every group\'s drafts with metadata only, and one group with --group; --json has the same', () => {
    const listed = drafts();
    expect(listed.status).toBe(0);
    expect(listed.stdout).toMatch(/ID +GROUP +KIND +CHILD +SIZE +AGE +FIRST LINE/);
    expect(listed.stdout).toMatch(new RegExp(`${steer.id} +main +steer +c-1a2b3c4d +56 B +\\d+[smhd] +STEER-FIRST-LINE look in src/ too`));
    expect(listed.stdout).toMatch(new RegExp(`${start.id} +main +start +- `));
    expect(listed.stdout).toContain(parent.id);
    expect(listed.stdout).not.toContain('SECOND-LINE-NOT-LISTED');

    const json = JSON.parse(drafts('--group', 'main', '--json').stdout);
    expect(json.unreadable).toEqual([]);
    expect(json.drafts.map((draft: { id: string }) => draft.id)).toEqual([steer.id, start.id]);
    expect(json.drafts[0]).toEqual({ id: steer.id, group: 'main', kind: 'steer', child: 'c-1a2b3c4d', bytes: 56, createdAt: steer.createdAt, sessionId: 's-42', firstLine: 'STEER-FIRST-LINE look in src/ too' });
  });

  it('show prints one draft whole with its provenance; an unknown or malformed id is refused', () => {
    const shown = drafts('show', steer.id);
    expect(shown.status).toBe(0);
    expect(shown.stdout).toContain(`${steer.id} steer for child c-1a2b3c4d · group main`);
    expect(shown.stdout).toContain('in session s-42');
    expect(shown.stdout).toContain('STEER-FIRST-LINE look in src/ too\nSECOND-LINE-NOT-LISTED');
    expect(JSON.parse(drafts('show', parent.id, '--json').stdout)).toEqual(parent);
    const missing = drafts('show', 'd-ffffffffffff');
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toContain('there is no saved draft d-ffffffffffff [NOT_FOUND]');
    expect(drafts('show', '../x').stderr).toContain('is not a saved draft id [USAGE]');
  });

  it('a damaged file is listed as unreadable with the fix, the others still listed; delete removes it and a good one', () => {
    const dir = path.join(savedDraftsDir(env), 'main');
    const file = path.join(dir, `${start.id}.json`);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('find the flaky test', 'find the flaky tests'));
    const listed = drafts();
    expect(listed.status).toBe(0);
    expect(listed.stdout).toContain(steer.id);
    expect(listed.stdout).toContain(`unreadable ${file}: its SHA-256 does not match its content (it was changed after it was saved) (fix: xdog claw agents drafts delete ${start.id})`);
    const refused = drafts('show', start.id);
    expect(refused.stderr).toContain(`saved draft ${start.id} is unreadable`);

    expect(drafts('delete', start.id).stdout).toContain(`deleted saved draft ${start.id} (it was unreadable)`);
    const deleted = JSON.parse(drafts('delete', steer.id, '--json').stdout);
    expect(deleted).toMatchObject({ deleted: steer.id, draft: { kind: 'steer', child: 'c-1a2b3c4d' } });
    expect(fs.readdirSync(dir)).toEqual([]);
    expect(drafts('--group', 'main').stdout).toContain('(no saved drafts)');
    expect(drafts('delete', steer.id).stderr).toContain('[NOT_FOUND]');
  });
});
