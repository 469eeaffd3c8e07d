/**
 * `workspace.diff`: what changed in a group's workspace, as git sees it (the
 * changed and untracked files, and the diff against HEAD). git runs with a
 * deadline and a byte bound; a diff over the bound is not cut: the answer
 * carries the file list only and says why.
 *
 * The gateway runs git outside the group's sandbox, on a repository the
 * model may have written: a repository whose own config names a command git
 * would run (filters, textconv or diff drivers, fsmonitor, includes) is
 * refused, and external diffs and textconv are off.
 */
import { execFile } from 'node:child_process';
import { ErrorCodes, LIMITS, XdogError } from '../../core/index.js';

export interface WorkspaceDiff {
  workspace: string;
  /** `git status --porcelain` lines: `XY path`. */
  files: string[];
  /** The diff against HEAD (or of the index in a repository without commits); null when over the bound. */
  diff: string | null;
  /** Why `diff` is null. */
  omitted?: string;
}

function git(workspace: string, args: string[]): Promise<{ ok: true; stdout: string } | { ok: false; code: string | number | null; stderr: string }> {
  return new Promise((resolve) => {
    execFile('git', ['-C', workspace, '-c', 'core.quotePath=false', '-c', 'core.fsmonitor=false', '--no-pager', ...args], { maxBuffer: LIMITS.workspaceDiffBytes, timeout: LIMITS.workspaceDiffMs, encoding: 'utf8', env: { ...process.env, GIT_OPTIONAL_LOCKS: '0' } }, (error, stdout, stderr) => {
      if (!error) resolve({ ok: true, stdout });
      else resolve({ ok: false, code: (error as NodeJS.ErrnoException).code ?? (error as { signal?: string }).signal ?? null, stderr: String(stderr).trim() });
    });
  });
}

/** Keys of a repository's own config through which git status/diff would run a program. */
const COMMAND_KEYS = /^(?:filter\.|diff\.[^\n]*\.(?:textconv|command)$|core\.fsmonitor$|include\.|includeif\.)/i;

async function refuseCommands(workspace: string): Promise<void> {
  const local = await git(workspace, ['config', '--local', '--no-includes', '--name-only', '--list']);
  if (!local.ok) return; // not a repository: git status below says so
  const risky = local.stdout.split('\n').filter((key) => COMMAND_KEYS.test(key));
  if (risky.length) {
    throw new XdogError(ErrorCodes.INVALID_STATE, `the workspace repository's own config sets ${risky.slice(0, 3).join(', ')}${risky.length > 3 ? ', …' : ''}, through which git would run a program outside the sandbox; the diff is not shown`, {
      hint: `read it there yourself (git -C ${workspace} diff) once you have checked .git/config`,
    });
  }
}

export async function workspaceDiff(workspace: string): Promise<WorkspaceDiff> {
  await refuseCommands(workspace);
  const status = await git(workspace, ['status', '--porcelain=v1', '--untracked-files=all']);
  if (!status.ok) {
    if (status.code === 'ENOENT') throw new XdogError(ErrorCodes.UNAVAILABLE, 'git is not installed on the gateway host', { hint: 'install git to see the workspace changes' });
    if (status.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `the list of changed files in ${workspace} is over ${LIMITS.workspaceDiffBytes} bytes`, { hint: 'commit or ignore some of them, or use git there directly' });
    if (status.code === 'SIGTERM') throw new XdogError(ErrorCodes.UNAVAILABLE, `git status in ${workspace} took over ${LIMITS.workspaceDiffMs} ms`, { hint: 'use git there directly' });
    throw new XdogError(ErrorCodes.INVALID_STATE, `the workspace ${workspace} is not a git repository (${status.stderr.split('\n')[0] ?? 'git failed'})`, { hint: `run git init there to track its changes` });
  }
  const files = status.stdout.split('\n').filter(Boolean);
  const head = await git(workspace, ['rev-parse', '--verify', '--quiet', 'HEAD']);
  const diff = await git(workspace, head.ok ? ['diff', 'HEAD', '--no-color', '--no-ext-diff', '--no-textconv'] : ['diff', '--cached', '--no-color', '--no-ext-diff', '--no-textconv']);
  if (diff.ok) return { workspace, files, diff: diff.stdout };
  const why = diff.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER' ? `the diff is over ${LIMITS.workspaceDiffBytes} bytes` : diff.code === 'SIGTERM' ? `git diff took over ${LIMITS.workspaceDiffMs} ms` : `git diff failed: ${diff.stderr.split('\n')[0] ?? diff.code}`;
  return { workspace, files, diff: null, omitted: `${why}; use git in ${workspace} to read it` };
}
