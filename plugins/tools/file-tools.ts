/**
 * The file tools: `read`, `write`, `edit`, `ls`. Paths are relative to the
 * working directory (absolute paths work too). Every read is bounded; a file
 * too large to take whole asks the model to read a range. Under a sandbox
 * policy (plugins/sandbox) each path is judged by its real path against the
 * sandbox's roots, so these tools obey the same rules as a sandboxed bash.
 */
import { isUtf8 } from 'node:buffer';
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { ErrorCodes, LIMITS, XdogError, nonRegularKind, readRegularFile, type AgentTool, type AgentToolResult } from '../../core/index.js';
import { SANDBOX_OFF, checkRead, checkWrite, type SandboxPolicy } from '../sandbox/index.js';
import { withPathLock } from './path-lock.js';
import { IGNORED_DIRS } from './walk.js';
import { clipLine, displayPath, errorResult, resolvePath, textResult } from './results.js';
import { markReadOnly } from './read-only.js';

const IMAGE_TYPES: Record<string, string> = { '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.webp': 'image/webp', '.gif': 'image/gif' };

/** Reads a whole file within the file-tool bound, or returns why not. `utf8` is false when decoding had to replace bytes. */
async function readWhole(file: string, shown: string): Promise<{ text: string; utf8: boolean } | { error: string }> {
  let bytes;
  try {
    if ((await fs.stat(file)).isDirectory()) return { error: `${shown} is a directory; use ls` };
    bytes = await readRegularFile(file, { maxBytes: LIMITS.fileToolFileBytes, what: 'file', shown });
  } catch (error) {
    return { error: describeReadError(error, shown) };
  }
  return { text: bytes.toString('utf8'), utf8: isUtf8(bytes) };
}

/** Why a bounded read failed, for the model: the helper's own message, or the fs error. */
function describeReadError(error: unknown, shown: string): string {
  if (XdogError.is(error)) return error.code === ErrorCodes.LIMIT_EXCEEDED ? `${error.message} for this tool; read a range with bash (e.g. sed -n)` : error.message;
  return `${shown}: ${describeFsError(error)}`;
}

/** Writing into a FIFO or a device would block or reach hardware: only regular files (or new ones) are written. */
async function nonRegularTarget(file: string, shown: string): Promise<string | undefined> {
  const stat = await fs.stat(file).catch(() => undefined);
  const kind = stat && nonRegularKind(stat);
  return kind ? `${shown} is ${kind}, not a regular file; write only writes regular files` : undefined;
}

function describeFsError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file or directory';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'is a directory';
  if (code === 'ENOTDIR') return 'a parent of it is not a directory';
  return (error as Error).message;
}

const ReadArgs = z.object({
  path: z.string().min(1).describe('File to read, relative to the working directory.'),
  offset: z.number().int().positive().optional().describe('First line to return (1-based). Use with limit for large files.'),
  limit: z.number().int().positive().optional().describe(`Number of lines to return (at most ${LIMITS.readToolLines}).`),
});

/** What the file tools are built with. */
export interface FileToolOptions {
  cwd: string;
  sandbox?: SandboxPolicy;
}

export function createReadTool(options: FileToolOptions): AgentTool<z.infer<typeof ReadArgs>> {
  return markReadOnly({
    name: 'read',
    description:
      'Read a text file (or a PNG/JPEG/WebP/GIF image) from the working directory. Lines are numbered. ' +
      `At most ${LIMITS.readToolLines} lines or ${LIMITS.readToolBytes / 1024} KiB come back per call; use offset and limit to page through larger files.`,
    parameters: ReadArgs,
    async execute(args) {
      const file = resolvePath(options.cwd, args.path);
      const shown = displayPath(options.cwd, file);
      const verdict = await checkRead(file, options.sandbox ?? SANDBOX_OFF, options.cwd, shown);
      if (verdict.refused) return errorResult(verdict.refused);
      const mimeType = IMAGE_TYPES[path.extname(file).toLowerCase()];
      if (mimeType) {
        try {
          const data = await readRegularFile(file, { maxBytes: LIMITS.defaultImageBytes, what: 'image', shown });
          return { content: [{ type: 'text', text: `${shown} (${mimeType}, ${data.length} bytes)` }, { type: 'image', data: data.toString('base64'), mimeType }] };
        } catch (error) {
          return errorResult(describeReadError(error, shown));
        }
      }
      const whole = await readWhole(file, shown);
      if ('error' in whole) return errorResult(whole.error);
      if (whole.text.includes('\u0000')) return errorResult(`${shown} looks binary; use bash (e.g. xxd or file) to inspect it`);
      const lines = whole.text.split('\n');
      if (lines.at(-1) === '') lines.pop();
      const start = (args.offset ?? 1) - 1;
      if (start >= lines.length && lines.length > 0) return errorResult(`offset ${args.offset} is past the end of ${shown} (${lines.length} lines)`);
      const wanted = Math.min(args.limit ?? LIMITS.readToolLines, LIMITS.readToolLines);
      const out: string[] = [];
      let bytes = 0;
      let index = start;
      for (; index < lines.length && out.length < wanted; index++) {
        const line = `${index + 1}\t${clipLine(lines[index]!, LIMITS.toolLineChars)}`;
        bytes += Buffer.byteLength(line) + 1;
        if (bytes > LIMITS.readToolBytes) break;
        out.push(line);
      }
      if (index < lines.length) out.push(`[${lines.length - index} more lines; continue with offset ${index + 1}]`);
      return textResult(out.length ? out.join('\n') : `(${shown} is empty)`, { path: file, totalLines: lines.length });
    },
  });
}

/** The nearest existing ancestor of `file` when it is not a folder (mkdir would say only EEXIST or ENOTDIR). */
async function nonFolderAncestor(file: string): Promise<string | undefined> {
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    const stat = await fs.stat(dir).catch(() => undefined);
    if (stat) return stat.isDirectory() ? undefined : dir;
    if (path.dirname(dir) === dir) return undefined;
  }
}

const WriteArgs = z.object({
  path: z.string().min(1).describe('File to write, relative to the working directory. Parent directories are created.'),
  content: z.string().describe('The complete new content of the file.'),
});

export function createWriteTool(options: FileToolOptions): AgentTool<z.infer<typeof WriteArgs>> {
  return {
    name: 'write',
    description: 'Create or overwrite a file with the given content. For a small change to an existing file, prefer edit.',
    parameters: WriteArgs,
    async execute(args, context) {
      const given = resolvePath(options.cwd, args.path);
      const shown = displayPath(options.cwd, given);
      const bytes = Buffer.byteLength(args.content);
      if (bytes > LIMITS.fileToolFileBytes) return errorResult(`the content is ${bytes} bytes, over the ${LIMITS.fileToolFileBytes}-byte limit`);
      return withPathLock(
        given,
        async () => {
          // Judged and written by its real path: a symlink or ".." cannot lead the write elsewhere.
          const verdict = await checkWrite(given, options.sandbox ?? SANDBOX_OFF, options.cwd, shown);
          if (verdict.refused) return errorResult(verdict.refused);
          const file = verdict.real!;
          const refused = await nonRegularTarget(file, shown);
          if (refused) return errorResult(refused);
          const blocker = await nonFolderAncestor(file);
          if (blocker) return errorResult(`cannot write ${shown}: ${displayPath(options.cwd, blocker)} is a file, not a folder`);
          try {
            await fs.mkdir(path.dirname(file), { recursive: true });
            await fs.writeFile(file, args.content);
          } catch (error) {
            return errorResult(`${shown}: ${describeFsError(error)}`);
          }
          return textResult(`wrote ${bytes} bytes to ${shown}`, { path: file, bytes });
        },
        context?.signal,
      );
    },
  };
}

const EditArgs = z.object({
  path: z.string().min(1).describe('File to edit, relative to the working directory.'),
  old_text: z.string().min(1).describe('Exact text to replace. It must occur exactly once in the file; include surrounding lines to make it unique.'),
  new_text: z.string().describe('The replacement text.'),
});

export function createEditTool(options: FileToolOptions): AgentTool<z.infer<typeof EditArgs>> {
  return {
    name: 'edit',
    description:
      'Replace one exact occurrence of old_text with new_text in a file. old_text must match the file exactly (whitespace included) and occur exactly once; ' +
      'read the file first, and add surrounding lines when the text repeats.',
    parameters: EditArgs,
    async execute(args, context) {
      const file = resolvePath(options.cwd, args.path);
      // Read, check and write back under the file's lock: a parallel edit of the same file waits its turn.
      const shown = displayPath(options.cwd, file);
      return withPathLock(
        file,
        async () => {
          const verdict = await checkWrite(file, options.sandbox ?? SANDBOX_OFF, options.cwd, shown);
          return verdict.refused ? errorResult(verdict.refused) : applyEdit(verdict.real!, shown, args);
        },
        context?.signal,
      );
    },
  };
}

/** One edit: read, check that old_text occurs once, write back. The caller holds the file's lock. */
async function applyEdit(file: string, shown: string, args: z.infer<typeof EditArgs>): Promise<AgentToolResult> {
  const whole = await readWhole(file, shown);
  if ('error' in whole) return errorResult(whole.error);
  // Writing back a lossy decode would silently change every byte that is not UTF-8.
  if (!whole.utf8) return errorResult(`${shown} is not valid UTF-8 text; edit would change its other bytes, so use bash (e.g. sed or iconv) instead`);
  const first = whole.text.indexOf(args.old_text);
  if (first === -1) return errorResult(`old_text was not found in ${shown}; read the file and copy the text exactly`);
  let count = 0;
  for (let at = first; at !== -1; at = whole.text.indexOf(args.old_text, at + 1)) count++;
  if (count > 1) return errorResult(`old_text occurs ${count} times in ${shown}; include more surrounding text so it occurs once`);
  const updated = whole.text.slice(0, first) + args.new_text + whole.text.slice(first + args.old_text.length);
  const bytes = Buffer.byteLength(updated);
  if (bytes > LIMITS.fileToolFileBytes) return errorResult(`the edited ${shown} would be ${bytes} bytes, over the ${LIMITS.fileToolFileBytes}-byte limit`);
  try {
    await fs.writeFile(file, updated);
  } catch (error) {
    return errorResult(`${shown}: ${describeFsError(error)}`);
  }
  const line = whole.text.slice(0, first).split('\n').length;
  return textResult(`edited ${shown} at line ${line}`, { path: file, line });
}

const LsArgs = z.object({
  path: z.string().optional().describe('Directory to list, relative to the working directory (default: the working directory).'),
  all: z.boolean().optional().describe(`Also list hidden entries and ${[...IGNORED_DIRS].join('/')}.`),
});

export function createLsTool(options: FileToolOptions): AgentTool<z.infer<typeof LsArgs>> {
  return markReadOnly({
    name: 'ls',
    description: `List a directory, sorted, with "/" after subdirectories. Hidden entries and ${[...IGNORED_DIRS].join(', ')} are left out unless all is true. At most ${LIMITS.listToolEntries} entries.`,
    parameters: LsArgs,
    async execute(args) {
      const dir = resolvePath(options.cwd, args.path ?? '.');
      const shown = displayPath(options.cwd, dir) || '.';
      const verdict = await checkRead(dir, options.sandbox ?? SANDBOX_OFF, options.cwd, shown);
      if (verdict.refused) return errorResult(verdict.refused);
      let entries;
      try {
        entries = await fs.readdir(dir, { withFileTypes: true });
      } catch (error) {
        return errorResult(`${shown}: ${describeFsError(error)}`);
      }
      const names = entries
        .filter((entry) => args.all || (!entry.name.startsWith('.') && !IGNORED_DIRS.has(entry.name)))
        .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
        .sort();
      const shownNames = names.slice(0, LIMITS.listToolEntries);
      if (names.length > shownNames.length) shownNames.push(`[${names.length - shownNames.length} more entries not shown]`);
      return textResult(shownNames.length ? shownNames.join('\n') : `(${shown} is empty)`, { path: dir, count: names.length });
    },
  });
}
