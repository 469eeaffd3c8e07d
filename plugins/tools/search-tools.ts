/**
 * The search tools: `find` (files by glob) and `grep` (lines by regular
 * expression). Both walk the working directory (or a given folder), skip
 * `.git` and `node_modules` unless asked, and bound what they return.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { ErrorCodes, LIMITS, XdogError, compileLinearRegex, nonRegularKind, readRegularFile, type AgentTool, type LinearMatcher } from '../../core/index.js';
import { clipLine, displayPath, errorResult, resolvePath, textResult } from './results.js';
import { GlobError, IGNORED_DIRS, compileGlob, linksNotice, walkFiles } from './walk.js';
import { markReadOnly } from './read-only.js';

const ignoredList = [...IGNORED_DIRS].join(' and ');

function specialNotice(count: number): string {
  return `[${count} FIFOs, sockets or devices were skipped; only regular files are searched]`;
}

/** A glob's matcher, or the GlobError that says what is wrong with it. */
function globMatcher(glob: string): LinearMatcher | GlobError {
  try {
    return compileGlob(glob);
  } catch (error) {
    if (error instanceof GlobError) return error;
    throw error;
  }
}

const FindArgs = z.object({
  pattern: z.string().min(1).describe('Glob such as "*.ts", "src/**/*.test.ts" or "{README,CHANGELOG}.md". Without "/" it matches file names at any depth.'),
  path: z.string().optional().describe('Folder to search, relative to the working directory (default: the working directory).'),
  all: z.boolean().optional().describe(`Also search ${ignoredList}.`),
});

export function createFindTool(options: { cwd: string }): AgentTool<z.infer<typeof FindArgs>> {
  return markReadOnly({
    name: 'find',
    description: `Find files by glob pattern, listed relative to the searched folder. Skips ${ignoredList} unless all is true. At most ${LIMITS.listToolEntries} results.`,
    parameters: FindArgs,
    async execute(args, context) {
      const root = resolvePath(options.cwd, args.path ?? '.');
      const stat = await fs.stat(root).catch(() => undefined);
      if (!stat?.isDirectory()) return errorResult(`${displayPath(options.cwd, root)} is not a directory`);
      const matcher = globMatcher(args.pattern);
      if (matcher instanceof GlobError) return errorResult(matcher.message);
      const walk = await walkFiles(root, { all: args.all, signal: context.signal });
      const matches = walk.files.filter((file) => matcher.test(file));
      const lines = matches.slice(0, LIMITS.listToolEntries);
      if (matches.length > lines.length) lines.push(`[${matches.length - lines.length} more matches not shown; narrow the pattern]`);
      if (walk.special) lines.push(specialNotice(walk.special));
      if (walk.capped) lines.push(`[search stopped after ${LIMITS.walkToolFiles} files; search a smaller folder]`);
      const links = linksNotice(walk.links);
      if (links) lines.push(links);
      return textResult(matches.length ? lines.join('\n') : [`no files match ${args.pattern}`, ...lines].join('\n'), { count: matches.length });
    },
  });
}

const GrepArgs = z.object({
  pattern: z.string().min(1).describe('Regular expression to search for (RE2 syntax, as in ripgrep: JavaScript syntax without lookaround or backreferences), e.g. "function \\\\w+" or "TODO".'),
  path: z.string().optional().describe('File or folder to search, relative to the working directory (default: the working directory).'),
  glob: z.string().optional().describe('Only search files matching this glob, e.g. "*.ts".'),
  ignore_case: z.boolean().optional().describe('Match without regard to case.'),
  all: z.boolean().optional().describe(`Also search ${ignoredList}.`),
});

export function createGrepTool(options: { cwd: string }): AgentTool<z.infer<typeof GrepArgs>> {
  return markReadOnly({
    name: 'grep',
    description:
      `Search file contents for a regular expression; prints "file:line: text" for each matching line. Skips binary files, files over ${LIMITS.grepToolFileBytes / 1024 / 1024} MiB and ${ignoredList}. ` +
      `At most ${LIMITS.grepToolMatches} matches; narrow with path or glob.`,
    parameters: GrepArgs,
    async execute(args, context) {
      let regex: LinearMatcher;
      try {
        regex = compileLinearRegex(args.pattern, { ignoreCase: args.ignore_case });
      } catch (error) {
        return errorResult(`invalid regular expression: ${(error as Error).message}`);
      }
      const target = resolvePath(options.cwd, args.path ?? '.');
      const stat = await fs.stat(target).catch(() => undefined);
      if (!stat) return errorResult(`${displayPath(options.cwd, target)}: no such file or directory`);
      const kind = nonRegularKind(stat);
      if (kind && !stat.isDirectory()) return errorResult(`${displayPath(options.cwd, target)} is ${kind}, not a regular file; grep searches only regular files`);
      let files: string[];
      let capped = false;
      let special = 0;
      let links: string | undefined;
      if (stat.isDirectory()) {
        const matcher = args.glob ? globMatcher(args.glob) : undefined;
        if (matcher instanceof GlobError) return errorResult(matcher.message);
        const walk = await walkFiles(target, { all: args.all, signal: context.signal });
        files = walk.files.filter((file) => !matcher || matcher.test(file)).map((file) => path.join(target, file));
        capped = walk.capped;
        special = walk.special;
        links = linksNotice(walk.links);
      } else files = [target];

      const out: string[] = [];
      let matches = 0;
      let skippedLarge = 0;
      for (const file of files) {
        context.signal.throwIfAborted();
        let text: string;
        try {
          text = (await readRegularFile(file, { maxBytes: LIMITS.grepToolFileBytes, what: 'file' })).toString('utf8');
        } catch (error) {
          if (XdogError.is(error, ErrorCodes.LIMIT_EXCEEDED)) skippedLarge++;
          // A file that became a FIFO or a device since the walk listed it is not read; unreadable files are skipped as before.
          else if (XdogError.is(error)) special++;
          continue;
        }
        if (text.includes('\u0000')) continue;
        const lines = text.split('\n');
        for (let index = 0; index < lines.length; index++) {
          if (!regex.test(lines[index]!)) continue;
          matches++;
          if (out.length < LIMITS.grepToolMatches) out.push(`${displayPath(options.cwd, file)}:${index + 1}: ${clipLine(lines[index]!, LIMITS.toolLineChars)}`);
        }
      }
      if (matches > out.length) out.push(`[${matches - out.length} more matches not shown; narrow the search]`);
      if (skippedLarge) out.push(`[${skippedLarge} files over ${LIMITS.grepToolFileBytes} bytes were not searched]`);
      if (special) out.push(specialNotice(special));
      if (capped) out.push(`[search stopped after ${LIMITS.walkToolFiles} files; search a smaller folder]`);
      if (links) out.push(links);
      return textResult(matches ? out.join('\n') : [`no matches for ${args.pattern}`, ...out].join('\n'), { matches });
    },
  });
}
