/**
 * Starting and stopping the gateway as a background process: `start` spawns
 * `xdog claw gateway run` detached, its output appended to the log file, and
 * waits (bounded) until it answers `hello` or exits; `stop` sends SIGTERM to
 * the pid the gateway itself reports and waits (bounded) for it to go.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ErrorCodes, XdogError, isErrorCode, type ErrorCode } from '../../../core/errors.js';
import { LIMITS } from '../../../core/limits.js';
import type { GatewayHello } from './gateway.js';
import type { GatewayLocations } from '../../../plugins/claw-gateway/locations.js';

/** How long `start` waits for `hello` and `stop` for the exit, unless told otherwise (a loaded machine may need it). */
export const DAEMON_DEADLINE_MS = 30_000;
const POLL_MS = 100;
/** What a failed start shows of the log: its last lines, from at most this many bytes. */
const LOG_TAIL_BYTES = 16 * 1024;
const LOG_TAIL_LINES = 30;

/** Asks the socket for `hello`: the answer, or undefined while nothing (or not yet a ready gateway) answers. */
export type HelloProbe = () => Promise<GatewayHello | undefined>;

export interface StartOptions {
  locations: GatewayLocations;
  /** The argv that runs the gateway in the foreground (node, bin/run.js, claw, gateway, run, ...). */
  command: string[];
  probe: HelloProbe;
  deadlineMs?: number;
}

export interface StartedGateway {
  pid: number;
  socket: string;
  logFile: string;
}

export async function startDetached(options: StartOptions): Promise<StartedGateway> {
  const { locations, probe } = options;
  const running = await probe();
  if (running) {
    throw new XdogError(ErrorCodes.CONFLICT, `a gateway already runs (pid ${running.server.pid}) on ${locations.socket}`, {
      hint: 'xdog claw gateway status shows it; xdog claw gateway stop stops it',
    });
  }
  const logFd = openLog(locations);
  const logStart = fs.fstatSync(logFd).size;
  const [executable, ...args] = options.command;
  const child = spawn(executable!, args, { detached: true, stdio: ['ignore', logFd, logFd], env: process.env });
  fs.closeSync(logFd);
  child.unref();
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  let spawnError: Error | undefined;
  child.once('exit', (code, signal) => (exit = { code, signal }));
  child.once('error', (error) => (spawnError = error));

  const deadline = Date.now() + (options.deadlineMs ?? DAEMON_DEADLINE_MS);
  for (;;) {
    if (spawnError) throw new XdogError(ErrorCodes.UNAVAILABLE, `cannot start the gateway: ${spawnError.message}`);
    if (exit) {
      const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
      const tail = logTail(locations.logFile, logStart);
      // The gateway said why, as `xdog: MESSAGE [CODE] (HINT)`: that error, with its own code (never wrapped in a second one).
      const reported = reportedError(tail);
      if (reported) throw new XdogError(reported.code, `the gateway ${how} before it was ready: ${reported.message}`, { hint: `${reported.hint ? `${reported.hint}; ` : ''}the log: ${locations.logFile}` });
      throw new XdogError(ErrorCodes.UNAVAILABLE, `the gateway ${how} before it was ready; the end of ${locations.logFile}:\n${tail}`, {
        hint: `read ${locations.logFile}, or run it in the foreground: xdog claw gateway run`,
      });
    }
    const hello = await probe().catch(() => undefined);
    if (hello?.server.pid === child.pid) return { pid: child.pid!, socket: locations.socket, logFile: locations.logFile };
    if (Date.now() >= deadline) {
      throw new XdogError(ErrorCodes.UNAVAILABLE, `the gateway (pid ${child.pid}) did not answer on ${locations.socket} within ${Math.round((options.deadlineMs ?? DAEMON_DEADLINE_MS) / 1000)} s; it was left running`, {
        hint: `read ${locations.logFile}; stop it with xdog claw gateway stop or kill ${child.pid}`,
      });
    }
    await sleep(POLL_MS);
  }
}

/** Opens the log for appending (dir 0700, file 0600), first moving a log over the size limit to `.1`. */
function openLog(locations: GatewayLocations): number {
  fs.mkdirSync(path.dirname(locations.logFile), { recursive: true, mode: 0o700 });
  const size = fs.statSync(locations.logFile, { throwIfNoEntry: false })?.size ?? 0;
  if (size > LIMITS.clawLogBytes) fs.renameSync(locations.logFile, `${locations.logFile}.1`);
  const fd = fs.openSync(locations.logFile, 'a', 0o600);
  fs.fchmodSync(fd, 0o600);
  return fd;
}

/** The last `xdog: MESSAGE [CODE] (HINT)` line of a log tail (how the CLI prints an XdogError), if any. */
export function reportedError(tail: string): { code: ErrorCode; message: string; hint?: string } | undefined {
  for (const line of tail.split('\n').reverse()) {
    const match = /^xdog: (.*?) \[([A-Z_]+)\](?: \((.*)\))?$/.exec(line);
    if (match && isErrorCode(match[2])) return { code: match[2], message: match[1]!, ...(match[3] ? { hint: match[3] } : {}) };
  }
  return undefined;
}

/** The last lines this start wrote to the log (bounded). */
export function logTail(file: string, from = 0): string {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return '(no log)';
  }
  try {
    const size = fs.fstatSync(fd).size;
    const start = Math.max(from, size - LOG_TAIL_BYTES);
    const buffer = Buffer.alloc(Math.max(0, size - start));
    fs.readSync(fd, buffer, 0, buffer.length, start);
    const lines = buffer.toString('utf8').replace(/^\uFFFD+/, '').trimEnd().split('\n');
    const shown = lines.slice(-LOG_TAIL_LINES).join('\n');
    return shown || '(the log is empty)';
  } finally {
    fs.closeSync(fd);
  }
}

/** The pid recorded in the pid file, or undefined when there is none (a malformed file is an error naming it). */
export function readPidFile(file: string): number | undefined {
  let text: string;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const buffer = Buffer.alloc(64);
      text = buffer.subarray(0, fs.readSync(fd, buffer, 0, buffer.length, 0)).toString('utf8').trim();
    } finally {
      fs.closeSync(fd);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const pid = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(pid) || pid <= 1) {
    throw new XdogError(ErrorCodes.INVALID_STATE, `the pid file ${file} does not hold a pid`, { hint: 'remove it if no gateway runs' });
  }
  return pid;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Sends SIGTERM and waits (bounded) until the process is gone; false when it still runs at the deadline. */
export async function terminate(pid: number, deadlineMs = DAEMON_DEADLINE_MS): Promise<boolean> {
  try {
    process.kill(pid, 'SIGTERM');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return true;
    throw error;
  }
  const deadline = Date.now() + deadlineMs;
  while (isAlive(pid)) {
    if (Date.now() >= deadline) return false;
    await sleep(POLL_MS);
  }
  return true;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
