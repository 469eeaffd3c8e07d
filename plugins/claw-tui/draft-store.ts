/**
 * The draft kept on disk between TUI runs, one per group:
 * `$XDG_STATE_HOME/xdog/claw/drafts/GROUP.txt` (0600, in a 0700 directory).
 * Quitting with text in the editor saves it; the next start puts it back and
 * says so. A save replaces the file atomically (write a temp file, rename),
 * so a crash leaves the old draft or the new one, never half of one.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ErrorCodes, XdogError } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';
import { stateDir } from '../../core/paths.js';

export class DraftStore {
  readonly file: string;

  constructor(group: string, dir = path.join(stateDir(), 'claw', 'drafts')) {
    // Group names are config keys ([a-z0-9_-]); anything else is encoded, never a path.
    this.file = path.join(dir, `${encodeURIComponent(group)}.txt`);
  }

  /** The saved draft, or undefined without one. */
  read(): string | undefined {
    const stat = fs.lstatSync(this.file, { throwIfNoEntry: false });
    if (!stat) return undefined;
    if (!stat.isFile()) throw new XdogError(ErrorCodes.INVALID_STATE, `${this.file} is not a regular file; the saved draft was not read`, { hint: 'remove it' });
    if (stat.size > LIMITS.tuiSavedDraftBytes) throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `${this.file} is ${stat.size} bytes, over the ${LIMITS.tuiSavedDraftBytes}-byte draft limit; it was not read`, { hint: 'open it in an editor, or remove it' });
    return fs.readFileSync(this.file, 'utf8');
  }

  save(text: string): void {
    const bytes = Buffer.byteLength(text);
    if (bytes > LIMITS.tuiSavedDraftBytes) throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `the draft is ${bytes} bytes, over the ${LIMITS.tuiSavedDraftBytes}-byte limit of a saved draft; it was not saved`, { hint: 'send it, or keep it in a file of your own (Ctrl+G)' });
    fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const temp = `${this.file}.${crypto.randomUUID()}.tmp`;
    try {
      fs.writeFileSync(temp, text, { mode: 0o600, flag: 'wx' });
      fs.renameSync(temp, this.file);
    } finally {
      fs.rmSync(temp, { force: true });
    }
  }

  clear(): void {
    fs.rmSync(this.file, { force: true });
  }
}
