/**
 * Where a gateway keeps its files: the socket and token in the private runtime
 * directory (0700), the pid and log files in the state directory.
 */
import path from 'node:path';
import { runtimeDir, stateDir } from '../../core/paths.js';

export interface GatewayLocations {
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
  const run = path.join(runtimeDir(env), 'claw');
  const state = path.join(stateDir(env), 'claw');
  return {
    runtimeDir: run,
    socket: path.join(run, 'gateway.sock'),
    token: path.join(run, 'token'),
    stateDir: state,
    pidFile: path.join(state, 'gateway.pid'),
    logFile: path.join(state, 'gateway.log'),
  };
}
