/**
 * The draft kept on disk between TUI runs, one per group:
 * `$XDG_STATE_HOME/xdog/claw/drafts/GROUP.txt` (a DraftFile: 0600, in a 0700
 * directory, replaced atomically). Quitting with text in the editor saves it;
 * the next start puts it back and says so.
 */
import path from 'node:path';
import { DraftFile } from '../../core/draft-file.js';
import { stateDir } from '../../core/paths.js';

export class DraftStore extends DraftFile {
  constructor(group: string, dir = path.join(stateDir(), 'claw', 'drafts')) {
    // Group names are config keys ([a-z0-9_-]); anything else is encoded, never a path.
    super(path.join(dir, `${encodeURIComponent(group)}.txt`), 'send it, or keep it in a file of your own (Ctrl+G)');
  }
}
