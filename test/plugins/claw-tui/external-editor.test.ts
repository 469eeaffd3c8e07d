/** The external editor (Ctrl+G, /editor) on real processes: shell scripts stand in for the editor. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { editDraft, editorCommand } from '../../../plugins/claw-tui/external-editor.js';
import { tempDir } from '../../support/temp.js';

/** A script editor that runs `body` with the temp file as "$f"; returns its path. */
function scriptEditor(body: string): string {
  const file = path.join(tempDir('xdog-ed-'), 'ed');
  fs.writeFileSync(file, `#!/bin/sh\nfor f in "$@"; do :; done\n${body}\n`, { mode: 0o755 });
  return file;
}

/** Runs editDraft on `text` with VISUAL set to `visual`, counting the terminal hand-overs. */
async function edit(visual: string, text = 'old draft', workspace?: string): Promise<{ result: Promise<string>; handovers: () => number[] }> {
  let released = 0;
  let restored = 0;
  const result = editDraft({ text, env: { VISUAL: visual }, ...(workspace && { workspace }), release: () => released++, restore: () => restored++ });
  return { result, handovers: () => [released, restored] };
}

describe('the external editor', () => {
  it('runs $VISUAL, else $EDITOR, else vi, split into words without a shell', async () => {
    expect(await editorCommand({ VISUAL: 'code --wait', EDITOR: 'nano' })).toEqual({ argv: ['code', '--wait'], from: '$VISUAL' });
    expect(await editorCommand({ EDITOR: "'/path with space/ed' -x" })).toEqual({ argv: ['/path with space/ed', '-x'], from: '$EDITOR' });
    expect(await editorCommand({})).toEqual({ argv: ['vi'], from: 'the default editor' });
    await expect(editorCommand({ VISUAL: 'vi; touch /tmp/pwned' })).rejects.toThrow(/\$VISUAL \("vi; touch \/tmp\/pwned"\) cannot be run without a shell: .*; the draft is unchanged/);
  });

  it('returns the edited text (one trailing newline dropped), run in the workspace on a 0600 file that is removed after', async () => {
    const workspace = tempDir('xdog-ws-');
    const log = path.join(workspace, 'log');
    const run = await edit(scriptEditor(`{ pwd; stat -c %a "$f"; echo "$f"; } > '${log}'; printf '%s and more\\n' "$(cat "$f")" > "$f"`), 'old draft', workspace);
    expect(await run.result).toBe('old draft and more');
    expect(run.handovers()).toEqual([1, 1]);
    const [cwd, mode, file] = fs.readFileSync(log, 'utf8').trim().split('\n');
    expect([cwd, mode]).toEqual([workspace, '600']);
    expect(fs.existsSync(path.dirname(file!))).toBe(false);
  });

  it.each([
    ['a non-zero exit', 'echo edited > "$f"; exit 4', /exited with 4; the draft is unchanged/],
    ['an interruption', 'echo edited > "$f"; kill -INT $$', /was interrupted \(SIGINT\); the draft is unchanged/],
    ['a symlink put in place of the file', `rm "$f"; ln -s /etc/hostname "$f"`, /could not be read \(ELOOP.*; the draft is unchanged/],
    ['a FIFO put in place of the file', 'rm "$f"; mkfifo "$f"', /replaced by something that is not a regular file; the draft is unchanged/],
    ['a removed file', 'rm "$f"', /could not be read \(ENOENT.*; the draft is unchanged/],
    ['output over 1 MiB', 'head -c 1048577 /dev/zero | tr "\\0" x > "$f"', /the edited draft is 1048577 bytes, over the 1048576-byte draft limit; the draft is unchanged/],
    ['output that is not UTF-8', `printf 'ok \\377\\376' > "$f"`, /not valid UTF-8; the draft is unchanged/],
  ])('refuses %s, giving the terminal back', async (_, body, problem) => {
    const run = await edit(scriptEditor(body));
    await expect(run.result).rejects.toThrow(problem);
    expect(run.handovers()).toEqual([1, 1]);
  });

  it('says so when the editor cannot be started, and never takes the terminal for a setting it refuses', async () => {
    const missing = await edit('/nonexistent/editor --flag');
    await expect(missing.result).rejects.toThrow(/\$VISUAL \(\/nonexistent\/editor\) could not be started: .*ENOENT.*; the draft is unchanged/);
    const refused = await edit('vi $HOME');
    await expect(refused.result).rejects.toThrow(/cannot be run without a shell/);
    expect(refused.handovers()).toEqual([0, 0]);
  });
});
