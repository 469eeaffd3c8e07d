/** Where xdog keeps files, following the XDG base directory spec. */
import os from 'node:os';
import path from 'node:path';

function xdgDir(variable: string, fallback: string[], env: NodeJS.ProcessEnv = process.env): string {
  const value = env[variable];
  return value && path.isAbsolute(value) ? value : path.join(os.homedir(), ...fallback);
}

/** `$XDG_CONFIG_HOME/xdog` (default `~/.config/xdog`). */
export function configDir(): string {
  return path.join(xdgDir('XDG_CONFIG_HOME', ['.config']), 'xdog');
}

/** `$XDG_DATA_HOME/xdog` (default `~/.local/share/xdog`). */
export function dataDir(): string {
  return path.join(xdgDir('XDG_DATA_HOME', ['.local', 'share']), 'xdog');
}

/** `$XDG_CACHE_HOME/xdog` (default `~/.cache/xdog`): files that can be deleted at any time. */
export function cacheDir(): string {
  return path.join(xdgDir('XDG_CACHE_HOME', ['.cache']), 'xdog');
}

/** The user plugin directory that `xdog plugins install` fills. */
export function userPluginDir(): string {
  return path.join(dataDir(), 'plugins');
}

/** The config file: `--config`, else `XDOG_CONFIG`, else `<configDir>/config.yaml`. */
export function configFilePath(explicit?: string): string {
  return explicit ?? process.env.XDOG_CONFIG ?? path.join(configDir(), 'config.yaml');
}

/** `$XDG_STATE_HOME/xdog` (default `~/.local/state/xdog`): logs and pid files. */
export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(xdgDir('XDG_STATE_HOME', ['.local', 'state'], env), 'xdog');
}

/**
 * The private runtime directory for sockets and tokens: `$XDG_RUNTIME_DIR/xdog`,
 * else `<tmpdir>/xdog-<uid>` (the owner makes it 0700 and checks it is theirs).
 */
export function runtimeDir(env: NodeJS.ProcessEnv = process.env): string {
  const value = env.XDG_RUNTIME_DIR;
  if (value && path.isAbsolute(value)) return path.join(value, 'xdog');
  return path.join(os.tmpdir(), `xdog-${os.userInfo().uid}`);
}
