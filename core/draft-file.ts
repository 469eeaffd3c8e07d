/**
 * A draft kept on disk between runs of an interactive client (the claw TUI's
 * per-group draft, `xdog agent chat`'s unsent line): one 0600 file in a 0700
 * directory, bounded by LIMITS.savedDraftBytes. A save replaces the file
 * atomically (write a temp file, rename), so a crash leaves the old draft or
 * the new one, never half of one.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ErrorCodes, XdogError } from './errors.js';
import { LIMITS } from './limits.js';

export class DraftFile {
  constructor(
    readonly file: string,
    /** What the person can do with a draft too long to keep (the client's own remedy). */
    private readonly tooLongHint = 'send it, or keep it in a file of your own',
  ) {}

  /** The saved draft, or undefined without one. */
  read(): string | undefined {
    const stat = fs.lstatSync(this.file, { throwIfNoEntry: false });
    if (!stat) return undefined;
    if (!stat.isFile()) throw new XdogError(ErrorCodes.INVALID_STATE, `${this.file} is not a regular file; the saved draft was not read`, { hint: 'remove it' });
    if (stat.size > LIMITS.savedDraftBytes) throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `${this.file} is ${stat.size} bytes, over the ${LIMITS.savedDraftBytes}-byte draft limit; it was not read`, { hint: 'open it in an editor, or remove it' });
    return fs.readFileSync(this.file, 'utf8');
  }

  save(text: string): void {
    const bytes = Buffer.byteLength(text);
    if (bytes > LIMITS.savedDraftBytes) throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `the draft is ${bytes} bytes, over the ${LIMITS.savedDraftBytes}-byte limit of a saved draft; it was not saved`, { hint: this.tooLongHint });
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
