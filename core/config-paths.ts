/**
 * Paths written in the config file mean the same file wherever a command
 * runs: a relative one is taken from the config file's folder, not from the
 * working directory (else a gateway started elsewhere opens a second, empty
 * store), and a leading "~/" is the home directory.
 */
import os from 'node:os';
import path from 'node:path';
import type { XdogConfig } from './config.js';

/** `value` with a leading "~" or "~/" replaced by the home directory. */
export function expandHome(value: string): string {
  return value === '~' || value.startsWith('~/') ? path.join(os.homedir(), value.slice(1)) : value;
}

/** A path from the config, absolute: "~/" expanded, a relative one resolved against `base` (the config file's folder). */
export function resolveConfigPath(value: string, base: string): string {
  return path.resolve(base, expandHome(value));
}

/**
 * The config with its file paths absolute (claw.store.path, each
 * claw.groups.*.workspace, faux.script, extension_dir), resolved against `base`. Other
 * relative paths keep their documented anchors (skills.dirs and
 * mcp_servers.*.cwd: the working directory or the group's workspace).
 */
export function anchorConfigPaths(config: XdogConfig, base: string): XdogConfig {
  const at = (value: string): string => resolveConfigPath(value, base);
  const claw = config.claw;
  const store = claw?.store;
  return {
    ...config,
    ...(config.faux ? { faux: { ...config.faux, script: at(config.faux.script) } } : {}),
    ...(config.extension_dir === undefined ? {} : { extension_dir: at(config.extension_dir) }),
    ...(claw
      ? {
          claw: {
            ...claw,
            ...(store?.type === 'sqlite' && store.path ? { store: { ...store, path: at(store.path) } } : {}),
            ...(claw.groups ? { groups: Object.fromEntries(Object.entries(claw.groups).map(([name, group]) => [name, { ...group, workspace: at(group.workspace) }])) } : {}),
          },
        }
      : {}),
  };
}
