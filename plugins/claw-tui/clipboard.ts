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

const onPath = (name: string): boolean => (process.env.PATH ?? '').split(path.delimiter).some((dir) => dir && fs.existsSync(path.join(dir, name)));

/** The display's clipboard tools, when installed: wl-clipboard under Wayland, xclip under X11. */
function clipboardSystem(copy: 'wl-copy' | 'wl-paste'): 'wayland' | 'x11' | undefined {
  if (process.env.WAYLAND_DISPLAY && onPath(copy)) return 'wayland';
  if (process.env.DISPLAY && onPath('xclip')) return 'x11';
  return undefined;
}

/** wl-copy under Wayland, xclip under X11, when installed. */
function clipboardCommand(): string[] | undefined {
  const system = clipboardSystem('wl-copy');
  return system === 'wayland' ? ['wl-copy'] : system === 'x11' ? ['xclip', '-selection', 'clipboard'] : undefined;
}

function pipeTo(command: string[], text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command[0]!, command.slice(1), { stdio: ['pipe', 'ignore', 'ignore'] });
    const timer = setTimeout(() => child.kill('SIGKILL'), LIMITS.tuiClipboardMs);
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

/** What `/paste` found on the clipboard. */
export type Pasted = { kind: 'image'; mimeType: string; data: Buffer } | { kind: 'text'; text: string };

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp'];

/** Runs a clipboard tool for its output, bounded in bytes and time: more is an error, never a cut. */
function readFrom(command: string[], maxBytes: number, what: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(command[0]!, command.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let bytes = 0;
    let failure: XdogError | undefined;
    let stderr = '';
    const stop = (error: XdogError): void => {
      failure ??= error;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => stop(new XdogError(ErrorCodes.UNAVAILABLE, `${command[0]} did not answer within ${LIMITS.tuiClipboardMs} ms; nothing was pasted`)), LIMITS.tuiClipboardMs);
    child.stdout!.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > maxBytes) return stop(new XdogError(ErrorCodes.LIMIT_EXCEEDED, `the clipboard's ${what} is over ${maxBytes} bytes; nothing was pasted`, { hint: what === 'image' ? 'save it to a file, shrink it and /attach it' : 'save it to a file in the workspace and refer to it' }));
      chunks.push(chunk);
    });
    child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-500)));
    child.once('error', (error) => stop(new XdogError(ErrorCodes.UNAVAILABLE, `${command[0]} failed: ${error.message}`)));
    child.once('close', (code) => {
      clearTimeout(timer);
      if (failure) reject(failure);
      else if (code !== 0) reject(new XdogError(ErrorCodes.UNAVAILABLE, `${command[0]} exited with ${code}${stderr.trim() ? `: ${stderr.trim()}` : ''}; nothing was pasted`, { hint: 'copy something first' }));
      else resolve(Buffer.concat(chunks));
    });
  });
}

/** Reads the clipboard: an image when it offers PNG, JPEG or WebP, else its text. */
export async function readClipboard(): Promise<Pasted> {
  const system = clipboardSystem('wl-paste');
  if (!system) {
    throw new XdogError(ErrorCodes.UNAVAILABLE, 'no clipboard tool was found: /paste reads the clipboard with wl-paste (Wayland, package wl-clipboard) or xclip (X11)', {
      hint: "install one, or paste text with your terminal's paste key and images with /attach PATH",
    });
  }
  const tool = system === 'wayland' ? ['wl-paste', '--no-newline'] : ['xclip', '-selection', 'clipboard', '-o'];
  const types = (await readFrom(system === 'wayland' ? ['wl-paste', '--list-types'] : [...tool, '-t', 'TARGETS'], 64 * 1024, 'list of types')).toString('utf8').split('\n').map((line) => line.trim());
  const image = IMAGE_TYPES.find((type) => types.includes(type));
  if (image) return { kind: 'image', mimeType: image, data: await readFrom(system === 'wayland' ? [...tool, '--type', image] : [...tool, '-t', image], LIMITS.tuiAttachmentBytes, 'image') };
  const textType = system === 'wayland' ? ['--type', 'text/plain;charset=utf-8'] : ['-t', 'UTF8_STRING'];
  const withType = types.includes(system === 'wayland' ? 'text/plain;charset=utf-8' : 'UTF8_STRING');
  return { kind: 'text', text: (await readFrom(withType ? [...tool, ...textType] : tool, LIMITS.tuiDraftBytes, 'text')).toString('utf8') };
}
