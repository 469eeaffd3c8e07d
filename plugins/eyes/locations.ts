/**
 * Where the Eyes daemon keeps its files: the socket, token and start lock in
 * the private runtime directory (0700), the store, pid and log in the state
 * directory (the store outlives a reboot, the socket does not).
 */
import path from 'node:path';
import { runtimeDir, stateDir } from '../../core/paths.js';

export interface EyesLocations {
  /** The per-user runtime root (`$XDG_RUNTIME_DIR/xdog`), private to this user. */
  runtimeRoot: string;
  /** The daemon's private directory in it (0700). */
  runtimeDir: string;
  socket: string;
  /** The client token (0600); `hello` must carry it. */
  token: string;
  /** Held while one process starts the daemon, so concurrent ensures start one. */
  lockFile: string;
  stateDir: string;
  /** The daemon's SQLite store: watches, their observations and the claw groups following them. */
  store: string;
  pidFile: string;
  logFile: string;
}

/** The default locations: `$XDG_RUNTIME_DIR/xdog/eyes/` and `$XDG_STATE_HOME/xdog/eyes/` (of `env`). */
export function eyesLocations(env: NodeJS.ProcessEnv = process.env): EyesLocations {
  const root = runtimeDir(env);
  const run = path.join(root, 'eyes');
  const state = path.join(stateDir(env), 'eyes');
  return {
    runtimeRoot: root,
    runtimeDir: run,
    socket: path.join(run, 'eyes.sock'),
    token: path.join(run, 'token'),
    lockFile: path.join(run, 'start.lock'),
    stateDir: state,
    store: path.join(state, 'eyes.db'),
    pidFile: path.join(state, 'eyes.pid'),
    logFile: path.join(state, 'eyes.log'),
  };
}
