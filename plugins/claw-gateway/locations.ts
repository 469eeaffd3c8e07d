/**
 * Where a gateway keeps its files: the socket and token in the private runtime
 * directory (0700), the pid and log files in the state directory.
 */
import path from 'node:path';
import { runtimeDir, stateDir } from '../../core/paths.js';

export interface GatewayLocations {
  /** The per-user runtime directory the gateway's folder is in (`<tmpdir>/xdog-<uid>` without XDG_RUNTIME_DIR): it must be a private 0700 directory of this user's. */
  runtimeRoot: string;
  /** The private directory holding the socket and the token (0700). */
  runtimeDir: string;
  socket: string;
  /** The client token (0600); `hello` must carry it. */
  token: string;
  /** Logs and the pid file. */
  stateDir: string;
  pidFile: string;
  logFile: string;
}

/** The default locations: `$XDG_RUNTIME_DIR/xdog/claw/` and `$XDG_STATE_HOME/xdog/claw/` (of `env`). */
export function gatewayLocations(env: NodeJS.ProcessEnv = process.env): GatewayLocations {
  const root = runtimeDir(env);
  const run = path.join(root, 'claw');
  const state = path.join(stateDir(env), 'claw');
  return {
    runtimeRoot: root,
    runtimeDir: run,
    socket: path.join(run, 'gateway.sock'),
    token: path.join(run, 'token'),
    stateDir: state,
    pidFile: path.join(state, 'gateway.pid'),
    logFile: path.join(state, 'gateway.log'),
  };
}
