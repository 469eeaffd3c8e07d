/**
 * Completion in the TUI's editor: every slash command by name, the fixed
 * arguments of the commands that take words (`/queue resume`, `/copy entry`,
 * ...), `/ext…` through the extensions, and `@file` with paths relative to the
 * group's workspace. The file index honours .gitignore (it is `git ls-files
 * --cached --others --exclude-standard` in a git workspace, else a walk that
 * skips dot-folders and node_modules), is bounded in entries and time, and is
 * built once per workspace. Tab asks; Enter never picks (see app.ts).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { AutocompleteItem, AutocompleteProvider } from '@mariozechner/pi-tui';
import { LIMITS } from '../../core/limits.js';
import { SLASH_COMMANDS } from './slash-commands.js';

/** The words a command's first argument may be. */
const ARGUMENTS: Record<string, readonly string[]> = {
  queue: ['edit', 'remove', 'move', 'resume'],
  attachments: ['remove', 'clear'],
  copy: ['response', 'entry', 'conversation'],
  extensions: ['list', 'reload', 'unload'],
  goal: ['set', 'pause', 'resume', 'done', 'abandon'],
  mcp: ['connect', 'disconnect', 'refresh', 'tools', 'authorize', 'resources', 'prompts', 'read', 'prompt', 'insert'],
};

/** The suggestions for the text before the cursor, or undefined (then nothing shows). */
export function slashSuggestions(typed: string): { items: AutocompleteItem[]; prefix: string } | undefined {
  const name = /^\/([a-z-]*)$/i.exec(typed);
  if (name) {
    const items = SLASH_COMMANDS.filter((command) => command.name.startsWith(name[1]!.toLowerCase())).map((command) => ({ value: `/${command.name}`, label: `/${command.name}`, description: `${command.usage ? `${command.usage} — ` : ''}${command.summary}` }));
    return items.length ? { items, prefix: typed } : undefined;
  }
  const argument = /^\/([a-z-]+) ([a-z-]*)$/i.exec(typed);
  const words = argument ? ARGUMENTS[argument[1]!.toLowerCase()] : undefined;
  if (!argument || !words) return undefined;
  const items = words.filter((word) => word.startsWith(argument[2]!)).map((word) => ({ value: word, label: word }));
  return items.length ? { items, prefix: argument[2]! } : undefined;
}

/** The workspace's files, relative, git-ignore aware, at most `LIMITS.tuiFileIndexEntries`. */
export async function indexWorkspace(root: string): Promise<string[]> {
  const limit = LIMITS.tuiFileIndexEntries;
  const listed = await new Promise<string[] | undefined>((resolve) => {
    execFile('git', ['-C', root, 'ls-files', '--cached', '--others', '--exclude-standard', '-z'], { timeout: LIMITS.tuiFileIndexMs, maxBuffer: 64 * 1024 * 1024 }, (error, stdout) => resolve(error ? undefined : stdout.split('\0').filter(Boolean)));
  });
  if (listed) return listed.slice(0, limit);
  // Not a git workspace: a breadth-first walk, bounded in entries and time.
  const files: string[] = [];
  const deadline = Date.now() + LIMITS.tuiFileIndexMs;
  const queue = [''];
  while (queue.length && files.length < limit && Date.now() < deadline) {
    const dir = queue.shift()!;
    let entries: fs.Dirent[];
    try {
      entries = await fs.promises.readdir(path.join(root, dir), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      const relative = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.isDirectory()) queue.push(relative);
      else if (entry.isFile() && files.length < limit) files.push(relative);
    }
  }
  return files;
}

/** Files whose path contains `query` (case-insensitive), those whose name starts with it first. */
export function fileSuggestions(files: readonly string[], query: string, max = 20): string[] {
  const needle = query.toLowerCase();
  const hits = files.filter((file) => file.toLowerCase().includes(needle));
  const starts = (file: string): number => (path.basename(file).toLowerCase().startsWith(needle) ? 0 : 1);
  return hits.sort((a, b) => starts(a) - starts(b) || a.length - b.length || a.localeCompare(b)).slice(0, max);
}

/** The editor's provider: extension commands (`/ext…`, public names: `isExtension`) go to `extensions`, other slash text and `@file` are handled here. */
export function tuiCompletion(workspace: () => string | undefined, extensions: AutocompleteProvider, isExtension: (line: string) => boolean = (line) => /^\/ext-/.test(line)): AutocompleteProvider {
  const indexes = new Map<string, Promise<string[]>>();
  const filesOf = (root: string): Promise<string[]> => {
    let index = indexes.get(root);
    if (!index) indexes.set(root, (index = indexWorkspace(root)));
    return index;
  };
  return {
    getSuggestions: async (lines, cursorLine, cursorCol, options) => {
      const typed = (lines[cursorLine] ?? '').slice(0, cursorCol);
      const at = /(?:^|\s)@([^\s@]*)$/.exec(typed);
      if (at) {
        const root = workspace();
        if (!root) return null;
        const items = fileSuggestions(await filesOf(root), at[1]!).map((file) => ({ value: `@${file}`, label: file }));
        return items.length ? { items, prefix: `@${at[1]}` } : null;
      }
      if (cursorLine !== 0) return null;
      if (/^\/ext-/.test(typed) || (/^\/\S+\s/.test(typed) && isExtension(lines[cursorLine] ?? ''))) return extensions.getSuggestions(lines, cursorLine, cursorCol, options);
      return slashSuggestions(typed) ?? null;
    },
    applyCompletion: (lines, cursorLine, cursorCol, item, prefix) => {
      if (prefix.startsWith('/ext-') || (/^\/\S+\s/.test(prefix) && isExtension(lines[cursorLine] ?? ''))) return extensions.applyCompletion(lines, cursorLine, cursorCol, item, prefix);
      const line = lines[cursorLine] ?? '';
      const start = cursorCol - prefix.length;
      const value = item.value.startsWith('/') || item.value.startsWith('@') || !prefix.startsWith('/') ? `${item.value} ` : item.value;
      const next = [...lines];
      next[cursorLine] = line.slice(0, start) + value + line.slice(cursorCol);
      return { lines: next, cursorLine, cursorCol: start + value.length };
    },
  };
}
