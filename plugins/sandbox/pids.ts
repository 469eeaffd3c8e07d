/**
 * The pids limit of one sandboxed process tree, so a fork bomb stops at
 * LIMITS.sandboxPids. Two ways, chosen by what the machine allows:
 * - `rlimit` (non-root): RLIMIT_NPROC set inside the sandbox's own user
 *   namespace, where it counts only the sandbox's processes;
 * - `cgroup` (root, whom RLIMIT_NPROC does not bind): a fresh child cgroup
 *   of the pids controller with `pids.max`, entered before bwrap starts.
 */
import fs from 'node:fs';
import path from 'node:path';

export type PidsMethod = 'rlimit' | 'cgroup';

let cgroupParent: string | null | undefined;

/** The pids cgroup directory xdog may create children in, or null. */
function pidsCgroupParent(): string | null {
  if (cgroupParent !== undefined) return cgroupParent;
  cgroupParent = null;
  let membership: string;
  try {
    membership = fs.readFileSync('/proc/self/cgroup', 'utf8');
  } catch {
    return cgroupParent;
  }
  const lines = membership.trim().split('\n');
  const v1 = lines.map((line) => line.split(':')).find((parts) => parts[1]?.split(',').includes('pids'));
  const candidates: string[] = [];
  if (v1) candidates.push(path.join('/sys/fs/cgroup/pids', v1[2] ?? '/'), path.join('/sys/fs/cgroup', v1[2] ?? '/'));
  const v2 = lines.map((line) => line.split(':')).find((parts) => parts[0] === '0' && parts[1] === '');
  if (v2) {
    for (const mount of ['/sys/fs/cgroup', '/sys/fs/cgroup/unified']) {
      const dir = path.join(mount, v2[2] ?? '/');
      try {
        if (fs.readFileSync(path.join(dir, 'cgroup.subtree_control'), 'utf8').split(/\s+/).includes('pids')) candidates.push(dir);
      } catch {
        // not a v2 hierarchy with pids delegated here
      }
    }
  }
  for (const dir of candidates) {
    try {
      if (!fs.existsSync(path.join(dir, 'cgroup.procs'))) continue;
      const probe = fs.mkdtempSync(path.join(dir, 'xdog-probe-'));
      const writable = fs.existsSync(path.join(probe, 'pids.max'));
      fs.rmdirSync(probe);
      if (writable) return (cgroupParent = dir);
    } catch {
      // not writable here
    }
  }
  return cgroupParent;
}

/** How this process can bound a sandbox's processes, or undefined when it cannot. */
export function pidsMethod(): PidsMethod | undefined {
  if (process.getuid?.() !== 0) return 'rlimit';
  return pidsCgroupParent() ? 'cgroup' : undefined;
}

let serial = 0;

/** A child cgroup limited to `max` pids; `procs` is the file to write the first process into; `remove` waits until it has emptied. */
export function createPidsCgroup(max: number): { procs: string; remove(): Promise<void> } {
  const parent = pidsCgroupParent();
  if (!parent) throw new Error('no writable pids cgroup');
  const dir = path.join(parent, `xdog-sandbox-${process.pid}-${++serial}`);
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'pids.max'), String(max));
  return {
    procs: path.join(dir, 'cgroup.procs'),
    async remove() {
      // The kernel empties a cgroup shortly after its last process is reaped; give it a bounded while.
      for (let attempt = 0; attempt < 50; attempt++) {
        try {
          fs.rmdirSync(dir);
          return;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
          await new Promise((resolve) => setTimeout(resolve, 20 * Math.min(attempt + 1, 10)));
        }
      }
    },
  };
}
