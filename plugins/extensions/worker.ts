/**
 * One extension worker as the host owns it: a Node process in its own process
 * group, the private channel on fd 3, a bounded tail of its stderr for error
 * messages. `kill()` ends the whole group and resolves once it is reaped.
 * Under a sandbox policy the worker runs inside bubblewrap (plugins/sandbox).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import { BoundedTail } from '../../core/bounded-tail.js';
import { xdogInstallRoot } from '../../core/discovery.js';
import { LIMITS } from '../../core/limits.js';
import { killGroupOnHostExit, settleChild, signalProcessGroup } from '../../core/process-group.js';
import { prepareLaunch, type Launch, type SandboxPolicy } from '../sandbox/index.js';
import { Channel } from './channel.js';

/** The compiled worker entry (tests run TypeScript, but the worker is always the built one). */
export function workerEntry(): string {
  return path.join(xdogInstallRoot(), 'dist', 'plugins', 'extensions', 'worker-main.js');
}

/** How one worker starts: Node on the built entry, inside the sandbox `policy` asks for (fd 3 stays the channel). */
export function workerLaunch(cwd: string, policy: SandboxPolicy, id: string, packageDir?: string): Promise<Launch> {
  return prepareLaunch({ command: process.execPath, args: [workerEntry()], cwd, workspace: cwd, policy, stdioCount: 4, what: `the worker of extension "${id}"`, readable: packageDir ? [packageDir] : [] });
}

export class ExtensionWorker {
  readonly channel: Channel;
  readonly #child: ChildProcess;
  readonly #settled: Promise<unknown>;
  readonly #stderr = new BoundedTail(LIMITS.extensionStderrTailBytes);
  readonly #forgetOnExit: () => void;
  #exited = false;

  /** Spawns the worker; `onLost` is told once when the process exits or the channel breaks (not after `kill()`). */
  constructor(cwd: string, onLost: (reason: string) => void, launch: Launch) {
    this.#child = spawn(launch.command, launch.args, { cwd, detached: true, stdio: launch.stdio(['ignore', 'ignore', 'pipe', 'pipe']) });
    launch.spawned();
    this.#settled = settleChild(this.#child, LIMITS.extensionKillGraceMs).finally(() => launch.dispose());
    this.#forgetOnExit = this.#child.pid === undefined ? () => undefined : killGroupOnHostExit(this.#child.pid);
    this.#child.stderr!.on('data', (chunk: Buffer) => this.#stderr.push(chunk));
    const pipe = this.#child.stdio[3] as Duplex;
    let killed = false;
    this.channel = new Channel(pipe, pipe, (reason) => {
      if (!killed) onLost(reason);
    });
    this.#child.once('error', (error) => this.channel.break(`its worker could not start: ${error.message}`));
    this.#child.once('exit', (code, signal) => {
      this.#exited = true;
      this.#forgetOnExit();
      const tail = this.#stderr.text().trim().split('\n').slice(-3).join(' | ');
      this.channel.break(`its worker exited (${signal ?? `code ${code}`})${tail ? `: ${tail}` : ''}`);
    });
    this.kill = async () => {
      killed = true;
      this.channel.break('the host stopped it');
      if (!this.#exited) signalProcessGroup(this.#child.pid, 'SIGKILL');
      await this.#settled;
    };
  }

  /** Kills the worker's process group and waits until it is reaped. */
  readonly kill: () => Promise<void>;

  get pid(): number | undefined {
    return this.#child.pid;
  }
}
