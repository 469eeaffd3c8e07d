/**
 * Runs a gateway in this process until SIGTERM, SIGINT or SIGHUP: boots the
 * installed plugins, opens the store, starts the gateway, writes the pid file
 * and says "ready" (on the log, and to a parent that spawned it with an IPC
 * channel). Shutdown ends runs, closes groups and releases leases, bounded
 * by a deadline.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ClockToken, ErrorCodes, XdogError, bootKernel, describeError } from '../../core/index.js';
import { Gateway } from './gateway.js';
import { gatewayLocations, type GatewayLocations } from './locations.js';
import { openConfiguredStore } from './store.js';
import { ensurePrivateDir } from './transport/index.js';

/** The message a spawning parent receives over IPC once the gateway serves. */
export const READY_MESSAGE = 'xdog-claw-gateway-ready';

/** How long shutdown may take before the process exits anyway. */
const SHUTDOWN_DEADLINE_MS = 15_000;

export interface ForegroundOptions {
  configFile?: string;
  version: string;
  log(line: string): void;
  locations?: GatewayLocations;
  /** Join the pool of workers sharing the store (`--worker`). */
  worker?: { name?: string };
}

function writePidFile(file: string): void {
  ensurePrivateDir(path.dirname(file));
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, `${process.pid}\n`, { mode: 0o600 });
  fs.renameSync(temp, file);
}

/** Removes the pid file only if it is still ours (a newer gateway may have replaced it). */
function removePidFile(file: string): void {
  try {
    if (fs.readFileSync(file, 'utf8').trim() === String(process.pid)) fs.unlinkSync(file);
  } catch {
    // Already gone.
  }
}

function nextSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const signals: NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP'];
    const onSignal = (signal: NodeJS.Signals): void => {
      for (const other of signals) process.removeListener(other, onSignal);
      resolve(signal);
    };
    for (const signal of signals) {
      // The CLI's default turns these into an immediate exit; the gateway shuts down first.
      process.removeAllListeners(signal);
      process.on(signal, onSignal);
    }
  });
}

/** Serves until a signal; resolves after a clean shutdown, rejects when start-up fails. */
export async function runGatewayForeground(options: ForegroundOptions): Promise<void> {
  const locations = options.locations ?? gatewayLocations();
  const signal = nextSignal();
  const kernel = await bootKernel({ configFile: options.configFile });
  let gateway: Gateway | undefined;
  const opened = await openConfiguredStore(kernel).catch(async (error: unknown) => {
    await kernel.close();
    throw error;
  });
  try {
    gateway = await Gateway.start({ kernel, store: opened.store, dataSource: opened.dataSource, storeLocation: opened.location, clock: kernel.get(ClockToken), version: options.version, locations, log: options.log, worker: options.worker });
    writePidFile(locations.pidFile);
    const status = gateway.status();
    const role = status.worker ? `, worker ${status.worker.name}` : '';
    options.log(`ready: pid ${process.pid}${role}, socket ${locations.socket}, store ${opened.location}, groups ${status.groups.map((group) => group.name).join(', ') || 'none yet'}`);
    process.send?.({ type: READY_MESSAGE, pid: process.pid, socket: locations.socket });
    const received = await signal;
    options.log(`${received}: shutting down`);
    const deadline = setTimeout(() => {
      options.log(`shutdown took longer than ${SHUTDOWN_DEADLINE_MS} ms; exiting anyway (committed work is in the store)`);
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS);
    deadline.unref();
    await gateway.close();
    options.log('stopped');
  } finally {
    removePidFile(locations.pidFile);
    const problems: string[] = [];
    await gateway?.close().catch((error: unknown) => problems.push(describeError(error)));
    await kernel.close().catch((error: unknown) => problems.push(`plugins: ${describeError(error)}`));
    if (problems.length) options.log(`shutdown problems: ${problems.join('; ')}`);
  }
}

/** Refuses a second foreground gateway early when the pid file names a live one (the store's leases refuse it anyway). */
export function runningGatewayPid(locations: GatewayLocations = gatewayLocations()): number | undefined {
  let text: string;
  try {
    text = fs.readFileSync(locations.pidFile, 'utf8');
  } catch {
    return undefined;
  }
  const pid = Number.parseInt(text.trim(), 10);
  if (!Number.isSafeInteger(pid) || pid <= 0) throw new XdogError(ErrorCodes.INVALID_STATE, `${locations.pidFile} does not hold a pid`, { hint: 'remove the file if no gateway runs' });
  try {
    process.kill(pid, 0);
    return pid;
  } catch {
    return undefined;
  }
}
