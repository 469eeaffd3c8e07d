/**
 * Reaching the Eyes daemon: `connectEyes` talks to a running one (UNAVAILABLE
 * when none runs), `ensureEyes` starts one first when needed. Ensuring is
 * safe to race: the starter holds an exclusive lock file (with its pid, so a
 * dead starter's lock is taken over), and everyone else waits for the socket.
 * The daemon runs detached in its own process group, so it outlives the
 * process that started it; closing a client only detaches.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ErrorCodes, XdogError } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';
import { RpcClient, checkRuntimeDir, ensureRuntimeDir, probeSocket, readToken } from '../../core/rpc/index.js';
import { eyesLocations, type EyesLocations } from './locations.js';
import { EYES_PROTOCOL_VERSION, type EyesMethod, type EyesStatus } from './protocol.js';

export interface EyesConnectOptions {
  locations?: EyesLocations;
  /** Who connects, for the daemon's log. */
  client?: string;
  /** The caller's `eyes.allow_hosts`: a daemon started with other hosts is refused (stop it to restart with these). */
  allowHosts?: readonly string[];
}

/** A connection to the daemon. */
export interface EyesClient {
  readonly pid: number;
  /** True once the connection ended (the daemon stopped, or close()). */
  readonly closed: boolean;
  call(method: EyesMethod, params?: Record<string, unknown>, options?: { timeoutMs?: number }): Promise<any>;
  status(): Promise<EyesStatus>;
  /** Detaches (the daemon and its targets and watches keep running). */
  close(): Promise<void>;
}

const NOT_RUNNING_HINT = 'Eyes starts when an agent that selects it opens (config `capabilities: [eyes]`)';

/** Connects to a running daemon; UNAVAILABLE when none runs. */
export async function connectEyes(options: EyesConnectOptions = {}): Promise<EyesClient> {
  const locations = options.locations ?? eyesLocations();
  checkRuntimeDir(locations.runtimeRoot, locations.runtimeDir);
  if (!fs.existsSync(locations.socket) || !(await probeSocket(locations.socket))) {
    throw new XdogError(ErrorCodes.UNAVAILABLE, `no Eyes daemon is running (no socket answers at ${locations.socket})`, { hint: NOT_RUNNING_HINT });
  }
  const token = readToken(locations.token);
  const rpc = await RpcClient.connect({ socketPath: locations.socket, token, client: options.client ?? 'xdog', protocolVersion: EYES_PROTOCOL_VERSION, timeoutMs: LIMITS.eyesEnsureMs, callTimeoutMs: LIMITS.eyesNavigationMs + LIMITS.eyesActionMs * 4 });
  const client: EyesClient = {
    pid: rpc.hello.server.pid,
    get closed() {
      return rpc.closed;
    },
    call: (method, params, callOptions) => rpc.call(method, params ?? {}, callOptions),
    status: () => rpc.call('status', {}) as Promise<EyesStatus>,
    close: () => rpc.close(),
  };
  if (options.allowHosts) {
    const status = await client.status();
    const want = [...options.allowHosts].sort().join(',');
    if (status.allow_hosts.slice().sort().join(',') !== want) {
      await client.close();
      throw new XdogError(ErrorCodes.CONFLICT, `the running Eyes daemon (pid ${status.pid}) allows hosts [${status.allow_hosts.join(', ')}], this config allows [${options.allowHosts.join(', ')}]`, {
        hint: 'stop it (`xdog eyes stop`) so the next agent starts it with this config, or use the same eyes.allow_hosts',
      });
    }
  }
  return client;
}

/** The compiled daemon entry (dist/plugins/eyes/daemon-main.js), also when running from the TypeScript sources. */
export function daemonEntry(): string {
  const here = fileURLToPath(new URL('.', import.meta.url));
  const sibling = path.join(here, 'daemon-main.js');
  if (fs.existsSync(sibling)) return sibling;
  return path.resolve(here, '../../dist/plugins/eyes/daemon-main.js');
}

/** Connects to the daemon, starting it first when none runs (one start however many ensure at once). */
export async function ensureEyes(options: EyesConnectOptions = {}): Promise<EyesClient> {
  const locations = options.locations ?? eyesLocations();
  const deadline = Date.now() + LIMITS.eyesEnsureMs;
  for (;;) {
    try {
      return await connectEyes({ ...options, locations });
    } catch (error) {
      if (!XdogError.is(error, ErrorCodes.UNAVAILABLE)) throw error;
    }
    if (Date.now() >= deadline) {
      throw new XdogError(ErrorCodes.UNAVAILABLE, `the Eyes daemon did not answer within ${LIMITS.eyesEnsureMs / 1000} s`, { hint: `read its log: ${locations.logFile} (xdog eyes logs)` });
    }
    if (takeLock(locations)) {
      try {
        const client = await connectEyes({ ...options, locations }).catch(() => undefined);
        if (client) return client;
        return await startDaemon(locations, options, deadline);
      } finally {
        fs.rmSync(locations.lockFile, { force: true });
      }
    }
    await sleep(100);
  }
}

/** Takes the start lock (O_EXCL); a lock whose holder is dead is removed and taken. */
function takeLock(locations: EyesLocations): boolean {
  ensureRuntimeDir(locations.runtimeRoot, locations.runtimeDir);
  try {
    const fd = fs.openSync(locations.lockFile, 'wx', 0o600);
    fs.writeSync(fd, `${process.pid}\n`);
    fs.closeSync(fd);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const holder = Number(fs.readFileSync(locations.lockFile, { encoding: 'utf8', flag: 'r' }).trim() || '0');
  if (holder > 1 && isAlive(holder)) return false;
  // A dead starter's lock (or one written half): remove it; the next round takes it with O_EXCL.
  fs.rmSync(locations.lockFile, { force: true });
  return false;
}

async function startDaemon(locations: EyesLocations, options: EyesConnectOptions, deadline: number): Promise<EyesClient> {
  fs.mkdirSync(locations.stateDir, { recursive: true, mode: 0o700 });
  const size = fs.statSync(locations.logFile, { throwIfNoEntry: false })?.size ?? 0;
  if (size > LIMITS.eyesLogBytes) fs.renameSync(locations.logFile, `${locations.logFile}.1`);
  const log = fs.openSync(locations.logFile, 'a', 0o600);
  const env = { ...process.env, XDOG_EYES_ALLOW_HOSTS: JSON.stringify(options.allowHosts ?? []) };
  // Detached: its own session and process group, so signals to the starter's group never reach it.
  const child = spawn(process.execPath, [daemonEntry()], { detached: true, stdio: ['ignore', log, log], env, cwd: '/' });
  fs.closeSync(log);
  child.unref();
  let exited: string | undefined;
  child.once('exit', (code, signal) => (exited = signal ? `was killed by ${signal}` : `exited with code ${code}`));
  child.once('error', (error) => (exited = `could not start: ${error.message}`));
  for (;;) {
    if (exited) {
      throw new XdogError(ErrorCodes.UNAVAILABLE, `the Eyes daemon ${exited} before it was ready`, { hint: `read its log: ${locations.logFile} (xdog eyes logs)` });
    }
    const client = await connectEyes({ ...options, locations }).catch((error: unknown) => {
      if (XdogError.is(error, ErrorCodes.UNAVAILABLE)) return undefined;
      throw error;
    });
    if (client) return client;
    if (Date.now() >= deadline) {
      throw new XdogError(ErrorCodes.UNAVAILABLE, `the Eyes daemon (pid ${child.pid}) did not answer within ${LIMITS.eyesEnsureMs / 1000} s; it was left running`, { hint: `read its log: ${locations.logFile}; stop it with xdog eyes stop` });
    }
    await sleep(100);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
