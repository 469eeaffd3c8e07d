/**
 * Ctrl+G and `/editor`: the draft in the person's editor. The editor is
 * `$VISUAL`, else `$EDITOR`, else `vi`; the setting may hold arguments with
 * quotes (`code --wait`, `'/path with space/ed' -x`), split as words and
 * never run through a shell, and the private temp file is appended. The
 * group's workspace is its working directory when it exists here. The file
 * (mode 0600, in a 0700 directory of its own) is read back only if the
 * editor exited 0 and it is still a regular UTF-8 file within the draft
 * limit (a symlink or FIFO put in its place is refused); otherwise the
 * caller keeps the old draft. The directory is removed in every case.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ErrorCodes, XdogError } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';

export interface EditorSession {
  text: string;
  /** The group's workspace, if known: the editor starts there when it is a directory on this machine. */
  workspace?: string;
  env?: NodeJS.ProcessEnv;
  /** Hands the terminal to the editor, and takes it back afterwards (also when it failed). */
  release(): void;
  restore(): void;
}

/** The editor's argv: the setting split into words, with where it came from for messages. */
export async function editorCommand(env: NodeJS.ProcessEnv = process.env): Promise<{ argv: string[]; from: string }> {
  const from = env.VISUAL ? '$VISUAL' : env.EDITOR ? '$EDITOR' : 'the default editor';
  const setting = env.VISUAL || env.EDITOR || 'vi';
  // Loaded on first use only: the TUI starts without the bash parser.
  const { splitCommandLine } = await import('../approvals/index.js');
  const split = await splitCommandLine(setting);
  if ('problem' in split) {
    throw new XdogError(ErrorCodes.USAGE, `${from} (${JSON.stringify(setting)}) cannot be run without a shell: ${split.problem}; the draft is unchanged`, {
      hint: `set it to a program and its arguments, quoting any with spaces, e.g. VISUAL="code --wait" or EDITOR="'/path with space/ed' -x"`,
    });
  }
  return { argv: split.argv, from };
}

/** Runs the editor on the draft and returns the edited text; throws (the draft unchanged) on any failure. */
export async function editDraft(session: EditorSession): Promise<string> {
  const { argv, from } = await editorCommand(session.env);
  if (Buffer.byteLength(session.text) > LIMITS.tuiDraftBytes) throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `the draft is over the ${LIMITS.tuiDraftBytes}-byte draft limit; it was not opened in the editor`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xdog-draft-'));
  const file = path.join(dir, 'draft.md');
  try {
    fs.writeFileSync(file, session.text, { mode: 0o600, flag: 'wx' });
    const cwd = session.workspace && fs.statSync(session.workspace, { throwIfNoEntry: false })?.isDirectory() ? session.workspace : undefined;
    const outcome = await runEditor(argv, file, cwd, session);
    if (outcome.error) throw new XdogError(ErrorCodes.INVALID_STATE, `${from} (${argv[0]}) could not be started: ${outcome.error.message}; the draft is unchanged`, { hint: 'set $VISUAL or $EDITOR to an editor on your PATH' });
    if (outcome.signal) throw new XdogError(ErrorCodes.ABORTED, `the editor ${argv[0]} was interrupted (${outcome.signal}); the draft is unchanged`);
    if (outcome.code !== 0) throw new XdogError(ErrorCodes.INVALID_STATE, `the editor ${argv[0]} exited with ${outcome.code}; the draft is unchanged`);
    return readEdited(file);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Spawns the editor with the terminal; Ctrl+C in it reaches the editor, not the TUI. */
function runEditor(argv: string[], file: string, cwd: string | undefined, session: EditorSession): Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }> {
  const ignore = (): void => undefined;
  process.on('SIGINT', ignore);
  process.on('SIGQUIT', ignore);
  session.release();
  return new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((resolve) => {
    const child = spawn(argv[0]!, [...argv.slice(1), file], { stdio: 'inherit', ...(cwd && { cwd }) });
    child.once('error', (error) => resolve({ code: null, signal: null, error }));
    child.once('exit', (code, signal) => resolve({ code, signal }));
  }).finally(() => {
    process.removeListener('SIGINT', ignore);
    process.removeListener('SIGQUIT', ignore);
    session.restore();
  });
}

/** The edited file, if it is still a regular file of valid UTF-8 within the draft limit (one trailing newline dropped). */
function readEdited(file: string): string {
  const unchanged = 'the draft is unchanged';
  let fd: number;
  try {
    // No following a symlink, no blocking on a FIFO put in the file's place.
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch (error) {
    throw new XdogError(ErrorCodes.INVALID_STATE, `the edited file could not be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}: a symlink or a missing file); ${unchanged}`);
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new XdogError(ErrorCodes.INVALID_STATE, `the edited file was replaced by something that is not a regular file; ${unchanged}`);
    if (stat.size > LIMITS.tuiDraftBytes) throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `the edited draft is ${stat.size} bytes, over the ${LIMITS.tuiDraftBytes}-byte draft limit; ${unchanged}`);
    // One byte more than the limit shows a file that grew after the stat.
    const buffer = Buffer.alloc(LIMITS.tuiDraftBytes + 1);
    let length = 0;
    while (length < buffer.length) {
      const read = fs.readSync(fd, buffer, length, buffer.length - length, length);
      if (read === 0) break;
      length += read;
    }
    if (length > LIMITS.tuiDraftBytes) throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `the edited draft is over the ${LIMITS.tuiDraftBytes}-byte draft limit; ${unchanged}`);
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(buffer.subarray(0, length));
    } catch {
      throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `the edited file is not valid UTF-8; ${unchanged}`);
    }
    return text.replace(/\r?\n$/, '');
  } finally {
    fs.closeSync(fd);
  }
}
