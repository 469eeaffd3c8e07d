/**
 * The setting every cli-start run shares: a private HOME with its own config,
 * data, cache and runtime folders, an empty working directory, the faux
 * provider's script, offline, and a timer that runs one command under
 * /usr/bin/time for its CPU time (user + system) beside the wall time.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));

/** The text the faux reply (reply.json) and pi's bench provider answer with. */
export const REPLY = 'Hello from the bench.';

/** A fresh sandbox; `config` is the YAML written to its config file. Call `remove()` when done. */
export function makeSandbox(config) {
  const home = mkdtempSync(path.join(os.tmpdir(), 'xdog-cli-start-'));
  const cwd = path.join(home, 'work');
  mkdirSync(cwd, { recursive: true });
  const configFile = path.join(home, 'config.yaml');
  writeFileSync(configFile, config.replaceAll('$WORK', cwd));
  const env = {
    ...process.env,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, 'config'),
    XDG_DATA_HOME: path.join(home, 'data'),
    XDG_CACHE_HOME: path.join(home, 'cache'),
    XDG_STATE_HOME: path.join(home, 'state'),
    XDG_RUNTIME_DIR: path.join(home, 'run'),
    XDOG_CONFIG: configFile,
    XDOG_FAUX_SCRIPT: path.join(here, 'reply.json'),
    PI_CODING_AGENT_DIR: path.join(home, 'pi'),
    PI_OFFLINE: '1',
    OCLIF_SKIP_NEW_VERSION_CHECK: '1',
  };
  /** Runs `argv` (the Node first) once; its wall and CPU milliseconds. Throws when it fails or its output lacks `expect`. */
  function time(name, argv, expect) {
    const rusage = path.join(home, 'rusage');
    const started = performance.now();
    const result = spawnSync('/usr/bin/time', ['-o', rusage, '-f', '%U %S', ...argv], { cwd, env, encoding: 'utf8' });
    const wall = performance.now() - started;
    if (result.status !== 0 || (expect && !result.stdout.includes(expect))) {
      throw new Error(`${name} failed (exit ${result.status}): ${result.stdout}${result.stderr}`);
    }
    const [user, system] = readFileSync(rusage, 'utf8').trim().split('\n').at(-1).split(' ').map(Number);
    return { wall, cpu: (user + system) * 1000 };
  }
  /**
   * Runs `xdog claw gateway ARGS` of the checkout whose bin is `xdog` under `node`; the gateway
   * plays reply.mjs, which answers every turn (reply.json plays one answer per process).
   */
  function gateway(node, xdog, ...args) {
    const result = spawnSync(node, [xdog, 'claw', 'gateway', ...args], { cwd, env: { ...env, XDOG_FAUX_SCRIPT: path.join(here, 'reply.mjs') }, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`claw gateway ${args.join(' ')} failed (exit ${result.status}): ${result.stdout}${result.stderr}`);
  }
  return { home, cwd, env, time, gateway, remove: () => rmSync(home, { recursive: true, force: true }) };
}
