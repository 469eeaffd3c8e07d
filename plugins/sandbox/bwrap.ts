/**
 * The bubblewrap command line of one sandboxed process. The view inside:
 * - `/` read-only, a fresh `/dev`, the `/proc` of a new PID namespace, a
 *   private `/tmp`, `/run` and xdog's credentials hidden;
 * - workspace-write: the workspace and `writable` paths read-write;
 *   read-only: them read-only too (nothing is writable but the private /tmp);
 * - every namespace new (user, mount, pid, ipc, uts, cgroup; net unless
 *   network is on), all capabilities dropped, a new session (no TIOCSTI into
 *   the host's terminal), killed with its parent, and no-new-privileges plus
 *   the seccomp filter read from descriptor `seccompFd`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { credentialsFilePath, xdogInstallRoot } from '../../core/index.js';
import type { SandboxPolicy } from './policy.js';

export interface BwrapOptions {
  policy: SandboxPolicy;
  workspace: string;
  cwd: string;
  seccompFd: number;
  /** Host directory holding the allow-list proxy's socket, bound read-only at `proxyDirInside`. */
  proxyDir?: string;
  /** Paths the process must read even where the view hides their parent (xdog's own files, an extension's package under /tmp). */
  readable?: readonly string[];
}

/** Where the proxy's socket directory appears inside the sandbox. */
export const PROXY_DIR_INSIDE = '/tmp/.xdog-proxy';

/** True when `child` is `parent` or beneath it (both absolute, already resolved). */
function realPathOr(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return file;
  }
}

export function isWithin(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/** Paths the sandbox must not see, unless the workspace or a writable root lies under one. */
export function hiddenPaths(roots: readonly string[]): Array<{ path: string; kind: 'dir' | 'file' }> {
  const candidates: Array<{ path: string; kind: 'dir' | 'file' }> = [
    // Sockets of the host's daemons (docker, dbus, systemd, the xdog gateway under $XDG_RUNTIME_DIR) live here.
    { path: '/run', kind: 'dir' },
    { path: '/var/run', kind: 'dir' },
    { path: credentialsFilePath(), kind: 'file' },
  ];
  return candidates.filter((candidate) => {
    let stat;
    try {
      stat = fs.lstatSync(candidate.path);
    } catch {
      return false;
    }
    if (candidate.kind === 'dir' ? !stat.isDirectory() : !stat.isFile()) return false;
    return !roots.some((root) => isWithin(root, candidate.path));
  });
}

export function bwrapArgs(options: BwrapOptions): string[] {
  const { policy, workspace } = options;
  const roots = [workspace, ...policy.writable];
  const args = ['--unshare-all'];
  if (policy.network.kind === 'on') args.push('--share-net');
  args.push('--die-with-parent', '--new-session', '--cap-drop', 'ALL');
  args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp');
  for (const hidden of hiddenPaths(roots)) {
    if (hidden.kind === 'dir') args.push('--tmpfs', hidden.path);
    else args.push('--ro-bind', '/dev/null', hidden.path);
  }
  // After the tmpfs mounts, so a path under /tmp is still there (bwrap creates the mount point in the tmpfs).
  // What xdog runs inside (its install, Node) stays readable wherever it is installed.
  const hidden = ['/tmp', ...hiddenPaths(roots).filter((entry) => entry.kind === 'dir').map((entry) => entry.path)];
  const readable = [xdogInstallRoot(), path.dirname(process.execPath), ...(options.readable ?? [])];
  // By real path: a path through a symlink is bound where the link points (binding the link's own path could not be made).
  for (const needed of new Set(readable.map(realPathOr))) {
    if (hidden.some((dir) => isWithin(needed, dir)) && !roots.some((root) => isWithin(needed, root)) && fs.existsSync(needed)) args.push('--ro-bind', needed, needed);
  }
  const bind = policy.mode === 'workspace-write' ? '--bind' : '--ro-bind';
  for (const root of roots) {
    if (fs.existsSync(root)) args.push(bind, root, root);
  }
  if (options.proxyDir) args.push('--ro-bind', options.proxyDir, PROXY_DIR_INSIDE);
  args.push('--chdir', options.cwd, '--seccomp', String(options.seccompFd));
  return args;
}
