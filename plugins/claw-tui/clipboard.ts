/**
 * Putting text on the clipboard: `wl-copy` under Wayland, `xclip` under X11,
 * else OSC 52 (the terminal sets its clipboard; over SSH and in tmux with
 * `set-clipboard on` too), and for text over the OSC 52 bound a new 0600
 * file whose path is shown. The text is redacted by the caller first.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ErrorCodes, XdogError } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';
import { writePrivateFile } from './export-formats.js';

export type CopyOutcome = { via: 'tool'; tool: string } | { via: 'osc52' } | { via: 'file'; file: string };

/** wl-copy under Wayland, xclip under X11, when installed. */
function clipboardCommand(): string[] | undefined {
  const onPath = (name: string): boolean => (process.env.PATH ?? '').split(path.delimiter).some((dir) => dir && fs.existsSync(path.join(dir, name)));
  if (process.env.WAYLAND_DISPLAY && onPath('wl-copy')) return ['wl-copy'];
  if (process.env.DISPLAY && onPath('xclip')) return ['xclip', '-selection', 'clipboard'];
  return undefined;
}

function pipeTo(command: string[], text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command[0]!, command.slice(1), { stdio: ['pipe', 'ignore', 'ignore'] });
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new XdogError(ErrorCodes.INVALID_STATE, `${command[0]} failed: ${error.message}`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new XdogError(ErrorCodes.INVALID_STATE, `${command[0]} exited with ${code}; nothing was copied`));
    });
    child.stdin!.end(text);
  });
}

/** The OSC 52 sequence that sets the clipboard ("c") to `text`. */
export function osc52(text: string): string {
  return `\x1b]52;c;${Buffer.from(text, 'utf8').toString('base64')}\x07`;
}

/** Copies `text`; `write` sends bytes to the terminal (for OSC 52); `name` names the fallback file. */
export async function copyText(text: string, write: (data: string) => void, name: string): Promise<CopyOutcome> {
  const tool = clipboardCommand();
  if (tool) {
    await pipeTo(tool, text);
    return { via: 'tool', tool: tool[0]! };
  }
  if (Buffer.byteLength(text) <= LIMITS.tuiOsc52Bytes) {
    write(osc52(text));
    return { via: 'osc52' };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xdog-copy-'));
  return { via: 'file', file: writePrivateFile(path.join(dir, `${name}.txt`), text) };
}

export function describeCopy(outcome: CopyOutcome, what: string): string {
  if (outcome.via === 'tool') return `copied the ${what} with ${outcome.tool}`;
  if (outcome.via === 'osc52') return `copied the ${what} through the terminal (OSC 52; no wl-copy or xclip found)`;
  return `the ${what} is over ${LIMITS.tuiOsc52Bytes} bytes for the terminal clipboard and no wl-copy or xclip was found: it is in ${outcome.file} (0600)`;
}
