/**
 * Installs and removes plugins in the user plugin directory, an npm prefix of
 * its own (`$XDG_DATA_HOME/xdog/plugins`), by running npm as a subprocess.
 * An installed package must carry an `"xdog"` field; otherwise it is removed
 * again and the install fails. Plugins import `xdog` as a peer: the running
 * installation is linked into the prefix (npm is told not to fetch peers), so
 * a plugin always sees the same xdog as the CLI that loads it.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { assertNoConflicts, discoverPlugins, pluginsOfPackage, xdogInstallRoot, type DiscoveredPlugin, type DiscoveryOptions } from './discovery.js';
import { ErrorCodes, XdogError } from './errors.js';
import { userPluginDir } from './paths.js';

const run = promisify(execFile);

export interface InstallOptions extends DiscoveryOptions {
  /** The user plugin directory (default: `$XDG_DATA_HOME/xdog/plugins`). */
  userDir?: string;
}

function ensurePrefix(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  const manifest = path.join(dir, 'package.json');
  if (!fs.existsSync(manifest)) {
    fs.writeFileSync(manifest, JSON.stringify({ name: 'xdog-user-plugins', private: true, dependencies: {} }, null, 2) + '\n');
  }
}

/** Points `<prefix>/node_modules/xdog` at the running installation (npm prunes it, so after every npm run). */
function linkXdog(dir: string): void {
  const link = path.join(dir, 'node_modules', 'xdog');
  fs.mkdirSync(path.dirname(link), { recursive: true });
  fs.rmSync(link, { recursive: true, force: true });
  fs.symlinkSync(xdogInstallRoot(), link, 'dir');
}

async function npm(args: string[], cwd: string): Promise<void> {
  try {
    await run('npm', [...args, '--no-audit', '--no-fund', '--legacy-peer-deps', '--loglevel=error'], { cwd, maxBuffer: 16 * 1024 * 1024 });
    linkXdog(cwd);
  } catch (error) {
    linkXdog(cwd);
    const stderr = String((error as { stderr?: string }).stderr ?? '').trim();
    const reason = stderr.split('\n').filter((line) => line.trim()).slice(-3).join(' ') || (error as Error).message;
    throw new XdogError(ErrorCodes.PLUGIN_INSTALL_FAILED, `npm ${args[0]} failed: ${reason}`, {
      hint: 'check the package spec and that the npm registry is reachable',
      cause: error,
    });
  }
}

/** The names in `dependencies` of the plugin prefix. */
function installedNames(dir: string): string[] {
  const file = path.join(dir, 'package.json');
  if (!fs.existsSync(file)) return [];
  let pkg: { dependencies?: Record<string, string> };
  try {
    pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as typeof pkg;
  } catch (error) {
    throw new XdogError(ErrorCodes.PLUGIN_INVALID, `the user plugin directory's ${file} is unreadable: ${(error as Error).message}`, {
      hint: 'fix or remove that file; installed plugins are listed in its "dependencies"',
    });
  }
  return Object.keys(pkg.dependencies ?? {}).filter((name) => name !== 'xdog');
}

/**
 * The package name a spec names, when it can be told without npm: a local
 * folder's package.json, or a registry spec (`name`, `name@range`,
 * `@scope/name@range`). Tarballs, URLs and git specs give undefined.
 */
export function packageNameOfSpec(spec: string): string | undefined {
  if (fs.existsSync(spec)) {
    if (!fs.statSync(spec).isDirectory()) return undefined;
    try {
      const name = (JSON.parse(fs.readFileSync(path.join(spec, 'package.json'), 'utf8')) as { name?: unknown }).name;
      return typeof name === 'string' ? name : undefined;
    } catch {
      return undefined;
    }
  }
  const match = /^((?:@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*)(?:@[^/:]*)?$/i.exec(spec);
  return match?.[1];
}

/** Installs an npm spec or a local path; returns the plugins it brought. */
export async function installPlugin(spec: string, options: InstallOptions = {}): Promise<DiscoveredPlugin[]> {
  const dir = options.userDir ?? userPluginDir();
  ensurePrefix(dir);
  const before = new Set(installedNames(dir));
  // A local path is resolved against the caller's cwd, not the prefix.
  const target = fs.existsSync(spec) ? path.resolve(spec) : spec;
  await npm(['install', '--save', '--install-links', target], dir);
  const added = installedNames(dir).filter((name) => !before.has(name));
  const named = packageNameOfSpec(spec);
  const names = named ? [named] : added;
  if (names.length === 0) {
    throw new XdogError(ErrorCodes.PLUGIN_INSTALL_FAILED, `cannot tell which package ${spec} installed: nothing new was added to ${dir}`, {
      hint: 'install it by name (xdog plugins install NAME@VERSION) or from its folder',
    });
  }
  const plugins = names.flatMap((name) => pluginsOfPackage(path.join(dir, 'node_modules', name), 'user'));
  if (plugins.length === 0) {
    if (added.length) await npm(['uninstall', '--save', ...added], dir);
    throw new XdogError(ErrorCodes.PLUGIN_INVALID, `${spec} is not an xdog plugin: its package.json has no "xdog" field`, {
      hint: `see docs/plugins.md for the "xdog" field; ${added.length ? 'the package was removed again' : 'nothing was changed'}`,
    });
  }
  try {
    assertNoConflicts(discoverPlugins({ ...options, userDir: dir }));
  } catch (error) {
    if (added.length) await npm(['uninstall', '--save', ...added], dir);
    throw error;
  }
  return plugins;
}

/** Removes a package from the user plugin directory. */
export async function uninstallPlugin(name: string, options: InstallOptions = {}): Promise<void> {
  const dir = options.userDir ?? userPluginDir();
  if (!installedNames(dir).includes(name)) {
    throw new XdogError(ErrorCodes.NOT_FOUND, `no user plugin package named "${name}" in ${dir}`, {
      hint: 'run `xdog plugins list` to see installed plugins; only source "user" can be uninstalled',
    });
  }
  await npm(['uninstall', '--save', name], dir);
}
