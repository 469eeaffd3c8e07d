/**
 * Turns one process start (command, argv, cwd) into its sandboxed form under
 * a policy: the bwrap command line, the seccomp descriptor to add to the
 * spawn's stdio, the pids limit, and the allow-list proxy. Mode `off` passes
 * the start through unchanged. A policy this machine cannot enforce throws
 * (fail closed): nothing ever runs unsandboxed in its place.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { IOType, StdioNull, StdioPipe } from 'node:child_process';
import type { Stream } from 'node:stream';
import { ErrorCodes, LIMITS, XdogError, xdogInstallRoot } from '../../core/index.js';
import { PROXY_DIR_INSIDE, bwrapArgs } from './bwrap.js';
import { createPidsCgroup } from './pids.js';
import type { SandboxPolicy } from './policy.js';
import { INSTALL_HINT, probeSandbox } from './probe.js';
import { startAllowProxy, type AllowProxy } from './proxy.js';
import { privateDir, seccompFile } from './seccomp-file.js';

export interface LaunchSpec {
  command: string;
  args: string[];
  cwd: string;
  /** The directory workspace-write makes writable (a kernel's working directory, a claw group's workspace). */
  workspace: string;
  policy: SandboxPolicy;
  /** How many stdio entries the caller spawns with (3, or more for extra descriptors the command keeps). */
  stdioCount: number;
  /** What starts (for messages): "bash", "MCP server files", ... */
  what: string;
  /** Paths it must read wherever they are (see BwrapOptions.readable). */
  readable?: readonly string[];
}

/** One entry of a spawn's stdio array. */
export type StdioEntry = IOType | StdioNull | StdioPipe | 'ipc' | Stream | number | null | undefined;

export interface Launch {
  command: string;
  args: string[];
  /** The caller's stdio plus what the sandbox adds (the seccomp descriptor). */
  stdio(base: StdioEntry[]): StdioEntry[];
  /** Call once the process has been spawned (or failed to): closes the host's copy of the descriptor. */
  spawned(): void;
  /** Call once the process has exited: stops the proxy, removes the cgroup. */
  dispose(): Promise<void>;
}

/** The sandbox's own loopback port the forwarder listens on in allow mode. */
const FORWARDER_PORT = 3128;

/** The compiled forwarder (tests run TypeScript, but what runs inside the sandbox is always the built one). */
export function forwarderEntry(): string {
  return path.join(xdogInstallRoot(), 'dist', 'plugins', 'sandbox', 'forwarder-main.js');
}

/** The error of a policy that cannot be enforced here. */
export function sandboxUnavailable(what: string, mode: string, missing: readonly string[]): XdogError {
  return new XdogError(ErrorCodes.UNAVAILABLE, `refusing to start ${what}: sandbox mode ${mode} cannot be enforced on this machine; missing: ${missing.join('; ')}`, {
    hint: missing.some((line) => line.startsWith('bubblewrap')) ? `${INSTALL_HINT}; xdog sandbox check shows what this machine enforces` : 'xdog sandbox check shows what this machine enforces',
  });
}

let proxySerial = 0;

export async function prepareLaunch(spec: LaunchSpec): Promise<Launch> {
  const { policy } = spec;
  if (policy.mode === 'off') {
    return { command: spec.command, args: spec.args, stdio: (base) => base, spawned: () => undefined, dispose: async () => undefined };
  }
  const probe = await probeSandbox();
  if (probe.missing.length > 0 || !probe.bwrap || !probe.arch || !probe.pids) throw sandboxUnavailable(spec.what, policy.mode, probe.missing);
  const allow = policy.network.kind === 'allow' ? policy.network.hosts : undefined;
  // Allow mode needs one Unix socket (the forwarder's way to the proxy), so it keeps socket(AF_UNIX); /run and /tmp stay hidden.
  const filterFd = fs.openSync(seccompFile({ arch: probe.arch, denyUnixSockets: !allow }), 'r');
  let proxy: AllowProxy | undefined;
  let proxyDir: string | undefined;
  let cgroup: ReturnType<typeof createPidsCgroup> | undefined;
  try {
    if (allow) {
      proxyDir = fs.mkdtempSync(path.join(privateDir(), `proxy-${++proxySerial}-`));
      proxy = await startAllowProxy(path.join(proxyDir, 'proxy.sock'), allow);
    }
    let inner = [spec.command, ...spec.args];
    if (allow) inner = [process.execPath, forwarderEntry(), `${PROXY_DIR_INSIDE}/proxy.sock`, String(FORWARDER_PORT), String(spec.stdioCount - 3), '--', ...inner];
    // RLIMIT_NPROC inside the sandbox's own user namespace counts only its processes; bash sets it for good (soft and hard).
    if (probe.pids === 'rlimit') inner = ['bash', '-c', `ulimit -u ${LIMITS.sandboxPids} && exec "$@"`, 'xdog-sandbox', ...inner];
    const bwrap = [...bwrapArgs({ policy, workspace: spec.workspace, cwd: spec.cwd, seccompFd: spec.stdioCount, proxyDir, readable: spec.readable }), '--', ...inner];
    let command = probe.bwrap;
    let args = bwrap;
    if (probe.pids === 'cgroup') {
      cgroup = createPidsCgroup(LIMITS.sandboxPids);
      // The shell enters the cgroup and becomes bwrap, so nothing of the sandbox ever runs outside the limit.
      command = '/bin/sh';
      args = ['-c', 'echo $$ > "$0" && exec "$@"', cgroup.procs, probe.bwrap, ...bwrap];
    }
    let closed = false;
    const closeFd = (): void => {
      if (closed) return;
      closed = true;
      fs.closeSync(filterFd);
    };
    return {
      command,
      args,
      stdio: (base) => [...base, filterFd],
      spawned: closeFd,
      dispose: async () => {
        closeFd();
        await proxy?.close();
        if (proxyDir) fs.rmSync(proxyDir, { recursive: true, force: true });
        await cgroup?.remove();
      },
    };
  } catch (error) {
    fs.closeSync(filterFd);
    await proxy?.close();
    if (proxyDir) fs.rmSync(proxyDir, { recursive: true, force: true });
    await cgroup?.remove();
    throw error;
  }
}
