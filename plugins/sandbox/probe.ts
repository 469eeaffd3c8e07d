/**
 * What this machine can enforce: bubblewrap on PATH, namespaces (a trial run
 * of bwrap with the real seccomp filter), the filter's architecture, and a
 * pids limit. Probed once per process and PATH; `xdog sandbox check` prints it
 * and every sandboxed start refuses with its `missing` list when it is not
 * empty (fail closed).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { LIMITS } from '../../core/index.js';
import { pidsMethod, type PidsMethod } from './pids.js';
import { seccompFile } from './seccomp-file.js';
import { sandboxArch } from './seccomp.js';
import type { SandboxArch } from './syscalls.js';

export interface SandboxProbe {
  /** The bwrap binary found on PATH. */
  bwrap?: string;
  arch?: SandboxArch;
  namespaces: boolean;
  seccomp: boolean;
  pids?: PidsMethod;
  /** Landlock is not used as a layer yet (docs/sandbox.md). */
  landlock: 'not used';
  /** What is missing, each with how to get it; empty when the sandbox can run. */
  missing: string[];
}

export const INSTALL_HINT = 'install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)';

/** The first executable `name` on `PATH`. */
export function findOnPath(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

const cache = new Map<string, Promise<SandboxProbe>>();

/** The probe for the current PATH, run once. */
export function probeSandbox(env: NodeJS.ProcessEnv = process.env): Promise<SandboxProbe> {
  const key = env.PATH ?? '';
  let probe = cache.get(key);
  if (!probe) {
    probe = runProbe(env);
    cache.set(key, probe);
  }
  return probe;
}

async function runProbe(env: NodeJS.ProcessEnv): Promise<SandboxProbe> {
  const missing: string[] = [];
  const arch = sandboxArch();
  if (!arch) missing.push(`a seccomp syscall table for ${process.arch} (xdog has x64 and arm64); run xdog on one of those, or with sandbox mode off inside an outer sandbox`);
  const bwrap = findOnPath('bwrap', env);
  if (!bwrap) missing.push(`bubblewrap (bwrap is not on PATH): ${INSTALL_HINT}`);
  const pids = pidsMethod();
  if (!pids) missing.push('a pids limit: as root xdog needs a writable cgroup pids controller (/sys/fs/cgroup); run xdog as a non-root user, where RLIMIT_NPROC bounds the sandbox');
  let namespaces = false;
  let seccomp = false;
  if (bwrap && arch) {
    const trial = await trialRun(bwrap, arch);
    namespaces = trial.namespaces;
    seccomp = trial.seccomp;
    if (!trial.namespaces) missing.push(`user and mount namespaces (bwrap failed: ${trial.error}); allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1 or user.max_user_namespaces > 0, and no AppArmor userns restriction)`);
    else if (!trial.seccomp) missing.push(`seccomp filters (bwrap failed: ${trial.error}); the kernel needs CONFIG_SECCOMP_FILTER`);
  }
  return { bwrap, arch, namespaces, seccomp, pids, landlock: 'not used', missing };
}

/** Runs `true` under bwrap twice over one spawn: with namespaces and the real filter; the error tells which part failed. */
async function trialRun(bwrap: string, arch: NonNullable<ReturnType<typeof sandboxArch>>): Promise<{ namespaces: boolean; seccomp: boolean; error?: string }> {
  const base = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-all', '--die-with-parent', '--new-session', '--cap-drop', 'ALL'];
  const plain = await run(bwrap, [...base, 'true']);
  if (plain.code !== 0) return { namespaces: false, seccomp: false, error: plain.error };
  const fd = fs.openSync(seccompFile({ arch, denyUnixSockets: true }), 'r');
  try {
    const filtered = await run(bwrap, [...base, '--seccomp', '3', 'true'], fd);
    return { namespaces: true, seccomp: filtered.code === 0, error: filtered.error };
  } finally {
    fs.closeSync(fd);
  }
}

function run(command: string, args: string[], fd?: number): Promise<{ code: number | null; error?: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe', ...(fd === undefined ? [] : [fd])] });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), LIMITS.sandboxProbeTimeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      resolve({ code: null, error: error.message });
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, error: code === 0 ? undefined : stderr.trim().split('\n').at(-1) || `exit ${code ?? signal}` });
    });
  });
}
