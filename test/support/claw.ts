/**
 * A private claw setup for tests: temp XDG directories, a workspace, a config
 * with one group on the scripted faux model, and helpers to run the built
 * gateway as a process and to connect clients to it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { connectGateway, type GatewayConnection } from '../../plugins/claw-gateway/client.js';
import { gatewayLocations, type GatewayLocations } from '../../plugins/claw-gateway/locations.js';
import type { WorkersReport } from '../../plugins/claw-gateway/protocol.js';
import { repoRoot } from './cli.js';
import { tempDir } from './temp.js';

export const FAUX_MODEL_SCRIPT = path.join(repoRoot, 'test/fixtures/claw/faux-model.mjs');

export interface ClawSandbox {
  root: string;
  workspace: string;
  configFile: string;
  /** Requests the faux model received, one JSON line each. */
  fauxLog: string;
  storeFile: string;
  env: NodeJS.ProcessEnv;
  locations: GatewayLocations;
  /** Every faux request so far. */
  requests(): Array<{ messages: Array<{ role: string; content: unknown; toolCallId?: string; isError?: boolean }> }>;
}

export function clawSandbox(extraConfig = ''): ClawSandbox {
  const root = tempDir('xdog-claw-');
  const workspace = path.join(root, 'workspace');
  fs.mkdirSync(workspace);
  const configFile = path.join(root, 'config.yaml');
  const fauxLog = path.join(root, 'faux.jsonl');
  fs.writeFileSync(
    configFile,
    `claw:\n  groups:\n    main:\n      workspace: ${workspace}\n      model: faux/demo\n      enabled_tools: [bash, read]\n${extraConfig}`,
  );
  const env: NodeJS.ProcessEnv = {
    XDOG_CONFIG: configFile,
    XDG_RUNTIME_DIR: path.join(root, 'run'),
    XDG_STATE_HOME: path.join(root, 'state'),
    XDG_DATA_HOME: path.join(root, 'data'),
    XDG_CONFIG_HOME: path.join(root, 'config'),
    XDOG_FAUX_SCRIPT: FAUX_MODEL_SCRIPT,
    XDOG_FAUX_LOG: fauxLog,
  };
  return {
    root,
    workspace,
    configFile,
    fauxLog,
    storeFile: path.join(root, 'data', 'xdog', 'claw', 'claw.db'),
    env,
    locations: gatewayLocations(env),
    requests: () =>
      fs.existsSync(fauxLog)
        ? fs
            .readFileSync(fauxLog, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((line) => JSON.parse(line))
        : [],
  };
}

export interface GatewayProcess {
  child: ChildProcess;
  /** Everything the gateway wrote to stderr so far. */
  log(): string;
  /** SIGTERM, then waits for the exit (SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<number | null>;
  /** SIGKILL and wait. */
  kill9(): Promise<void>;
  exited: Promise<number | null>;
}

/** Starts `xdog claw gateway run` (plus `args`, e.g. `--worker`) and resolves once it says ready (rejects with its log if it exits first). */
export function startGateway(sandbox: ClawSandbox, deadlineMs = 30_000, args: readonly string[] = []): Promise<GatewayProcess> {
  const child = spawn(process.execPath, [path.join(repoRoot, 'bin/run.js'), 'claw', 'gateway', 'run', ...args], {
    cwd: sandbox.root,
    env: { ...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: '1', ...sandbox.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdout!.resume();
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const handle: GatewayProcess = {
    child,
    log: () => stderr,
    exited,
    async stop(graceMs = 20_000) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
    async kill9() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the gateway did not get ready within ${deadlineMs} ms:\n${stderr}`));
    }, deadlineMs);
    const onData = (): void => {
      if (stderr.includes('gateway: ready:')) {
        clearTimeout(timer);
        child.stderr!.off('data', onData);
        resolve(handle);
      }
    };
    child.stderr!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the gateway exited (${code}) before it was ready:\n${stderr}`));
    });
  });
}

/** A client connection to the sandbox's gateway. */
/** Connects a client; `features` are the client features its hello declares (ClientFeatures). */
export function connect(sandbox: ClawSandbox, client = 'test', features?: readonly string[]): Promise<GatewayConnection> {
  return connectGateway({ client, locations: sandbox.locations, ...(features ? { features } : {}) });
}

/** Collects the notifications of one connection. */
export function collect(connection: GatewayConnection, notification: string): Array<Record<string, any>> {
  const seen: Array<Record<string, any>> = [];
  connection.on(notification, (params) => seen.push(params));
  return seen;
}

/** Subscribes to the default group and collects its agent events and run ends. */
export async function watch(connection: GatewayConnection): Promise<{ events: Array<Record<string, any>>; ends: Array<Record<string, any>> }> {
  const events = collect(connection, 'event');
  const ends = collect(connection, 'run.end');
  await connection.call('subscribe', {});
  return { events, ends };
}

/** Waits until `predicate` holds, polling; fails with `what` after the deadline (a function is read then, so it can show the state at the timeout). */
export async function until(predicate: () => boolean | Promise<boolean>, what: string | (() => string), deadlineMs = 20_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!(await predicate())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${typeof what === 'function' ? what() : what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A gateway worker (`xdog claw gateway run --worker`) of a sandbox, with a client connected to it. */
export interface ClawWorker {
  name: string;
  /** The sandbox as this worker sees it: the shared config and store, its own runtime directory. */
  view: ClawSandbox;
  process: GatewayProcess;
  client: GatewayConnection;
}

/** Starts one worker on the sandbox's config and store, with its own XDG_RUNTIME_DIR (socket and token). */
export async function startWorker(sandbox: ClawSandbox, name: string, deadlineMs = 30_000): Promise<ClawWorker> {
  const env = { ...sandbox.env, XDG_RUNTIME_DIR: path.join(sandbox.root, `run-${name}`) };
  const view: ClawSandbox = { ...sandbox, env, locations: gatewayLocations(env) };
  const process = await startGateway(view, deadlineMs, ['--worker', '--name', name]);
  return { name, view, process, client: await connect(view, `client-of-${name}`) };
}

/** The groups a live worker named `name` holds, from a `workers.list` answer. */
export function groupsOf(report: WorkersReport, name: string): string[] {
  return report.workers.find((worker) => worker.name === name && worker.alive)?.groups.map((lease) => lease.group) ?? [];
}
