/**
 * Process groups that xdog starts (bash commands, stdio MCP servers). Each
 * child runs detached, leading its own group, so one signal reaches its whole
 * tree; the price is that a group would outlive a host that exits mid-way,
 * so groups still running when the host exits are killed with it.
 */

import type { ChildProcess } from 'node:child_process';

/** Sends `signal` to the group led by `pid`; an empty group is not an error. */
export function signalProcessGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already empty.
  }
}

const running = new Set<number>();
let exitHookInstalled = false;

/**
 * Kills the group led by `pid` if the host exits while it runs. Returns the
 * undo, to call once the group has ended. (Node runs exit hooks on a normal
 * exit and on process.exit(); the CLI turns SIGTERM and SIGHUP into one.)
 */
export function killGroupOnHostExit(pid: number): () => void {
  running.add(pid);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => {
      for (const group of running) signalProcessGroup(group, 'SIGKILL');
    });
  }
  return () => void running.delete(pid);
}

/** How a child's end went: `pipesCut` when something outside it still held its output open. */
export interface ChildSettled {
  pipesCut: boolean;
}

/**
 * Resolves once `child` has exited and its pipes have closed, or `graceMs`
 * after it exited while its pipes are still held open (by a background job, or
 * a grandchild that left the group with setsid): then our ends of the pipes are
 * destroyed, so no wait ever depends on a process outside our control. Call it
 * right after spawning.
 */
export function settleChild(child: ChildProcess, graceMs: number): Promise<ChildSettled> {
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const onClose = (): void => {
      clearTimeout(timer);
      resolve({ pipesCut: false });
    };
    child.once('close', onClose);
    child.once('exit', () => {
      timer = setTimeout(() => {
        child.removeListener('close', onClose);
        for (const stream of [child.stdin, child.stdout, child.stderr]) stream?.destroy();
        resolve({ pipesCut: true });
      }, graceMs);
    });
  });
}
