/** The processes below one pid, read from /proc (what `pgrep -P` gives, recursively, with each one's group, state and directory). */
import fs from 'node:fs';

export interface ProcessInfo {
  pid: number;
  ppid: number;
  pgid: number;
  /** The /proc state letter: Z is a zombie (exited, not reaped). */
  state: string;
  args: string[];
  cwd: string | undefined;
}

function info(pid: number): ProcessInfo | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may hold spaces: the fields after the last ")" are fixed.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const args = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    let cwd: string | undefined;
    try {
      cwd = fs.readlinkSync(`/proc/${pid}/cwd`);
    } catch {
      cwd = undefined;
    }
    return { pid, state: fields[0]!, ppid: Number(fields[1]), pgid: Number(fields[2]), args, cwd };
  } catch {
    return undefined;
  }
}

/** Every live (or zombie) descendant of `root`. */
export function descendants(root: number): ProcessInfo[] {
  const all = fs
    .readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => info(Number(name)))
    .filter((entry): entry is ProcessInfo => entry !== undefined);
  const found: ProcessInfo[] = [];
  const parents = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const entry of all) {
      if (parents.has(entry.ppid) && !parents.has(entry.pid)) {
        parents.add(entry.pid);
        found.push(entry);
        grew = true;
      }
    }
  }
  return found;
}

/** True while any process (zombies included) is in process group `pgid`. */
export function groupAlive(pgid: number): boolean {
  return fs
    .readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .some((name) => info(Number(name))?.pgid === pgid);
}
