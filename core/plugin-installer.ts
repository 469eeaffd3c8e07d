/**
 * Installs and removes plugins in the user plugin directory, an npm prefix of
 * its own (`$XDG_DATA_HOME/xdog/plugins`), by running npm as a subprocess.
 * A package is installed into a throwaway prefix and checked there first
 * (it must carry a valid `"xdog"` field), so a refused one changes nothing. Plugins import `xdog` as a peer: the running
 * installation is linked into the prefix (npm is told not to fetch peers), so
 * a plugin always sees the same xdog as the CLI that loads it.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { readRegularFileSync } from './bounded-read.js';
import { assertNoConflicts, discoverPlugins, extensionOfPackage, pluginsOfPackage, readPackageJson, xdogInstallRoot, type DiscoveredExtension, type DiscoveredPlugin, type DiscoveryOptions } from './discovery.js';
import { ErrorCodes, XdogError } from './errors.js';
import { LIMITS } from './limits.js';
import { dataDir, userPluginDir } from './paths.js';
import { checkDeclaredCommands, syncCommandPlugins } from './plugin-commands.js';
import { verifyPluginsLoad } from './plugin-verify.js';

const run = promisify(execFile);

export interface InstallOptions extends DiscoveryOptions {
  /** The user plugin directory (default: `$XDG_DATA_HOME/xdog/plugins`). */
  userDir?: string;
  /**
   * oclif's user plugin file, where packages with CLI commands are linked
   * (default: `$XDG_DATA_HOME/xdog/package.json` for the default userDir, else none).
   */
  commandsFile?: string | null;
  /**
   * Link a local folder instead of copying it, so edits there are picked up on
   * the next run (`xdog plugins link`). A later npm run in the prefix (another
   * install or uninstall) turns it back into a copy: link it again then.
   */
  link?: boolean;
}

/** Links the installed packages that have oclif commands into the CLI (see core/plugin-commands.ts). */
function syncCommands(dir: string, options: InstallOptions): void {
  const file = options.commandsFile !== undefined ? options.commandsFile : options.userDir === undefined ? path.join(dataDir(), 'package.json') : null;
  if (!file) return;
  const nodeModules = path.join(dir, 'node_modules');
  syncCommandPlugins(file, nodeModules, installedNames(dir).map((name) => path.join(nodeModules, name)));
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

async function npm(args: string[], cwd: string, options: { link?: boolean } = {}): Promise<void> {
  try {
    // --install-links on every run, not just installs: without it, any later npm run in the prefix turns
    // a folder-installed plugin into a symlink to its source, where `import 'xdog'` no longer resolves.
    // Only `xdog plugins link` asks for the symlink, for a folder that resolves xdog itself.
    await run('npm', [...args, ...(options.link ? [] : ['--install-links']), '--no-audit', '--no-fund', '--legacy-peer-deps', '--loglevel=error'], { cwd, maxBuffer: 16 * 1024 * 1024 });
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

function readManifest(file: string): string {
  return readRegularFileSync(file, { maxBytes: LIMITS.pluginManifestBytes, what: 'package manifest', code: ErrorCodes.PLUGIN_INVALID }).toString('utf8');
}

/** The names in `dependencies` of the plugin prefix. */
function installedNames(dir: string): string[] {
  const file = path.join(dir, 'package.json');
  if (!fs.existsSync(file)) return [];
  let pkg: { dependencies?: Record<string, string> };
  try {
    pkg = JSON.parse(readManifest(file)) as typeof pkg;
  } catch (error) {
    throw new XdogError(ErrorCodes.PLUGIN_INVALID, `the user plugin directory's ${file} is unreadable: ${(error as Error).message}`, {
      hint: 'fix or remove that file; installed plugins are listed in its "dependencies"',
    });
  }
  return Object.keys(pkg.dependencies ?? {}).filter((name) => name !== 'xdog');
}

/** The folder a spec names, when it is a local folder (resolved against the caller's cwd, not the prefix). */
function localFolderOf(spec: string): string | undefined {
  return fs.existsSync(spec) && fs.statSync(spec).isDirectory() ? path.resolve(spec) : undefined;
}

/** A local folder's package name; a missing or malformed package.json, or one without a name, is refused. */
function folderPackageName(folder: string): string {
  const file = path.join(folder, 'package.json');
  const pkg = readPackageJson(file);
  if (!pkg) throw new XdogError(ErrorCodes.PLUGIN_INVALID, `${folder} has no package.json, so it is not a package`, { hint: 'install the folder that holds the plugin\'s package.json' });
  if (typeof pkg !== 'object' || Array.isArray(pkg) || typeof pkg.name !== 'string' || pkg.name === '') {
    throw new XdogError(ErrorCodes.PLUGIN_INVALID, `${file} is malformed: it has no "name" string`, { hint: 'a plugin package.json needs "name", "version" and an "xdog" field; see docs/plugins.md' });
  }
  return pkg.name;
}

/**
 * The package name a spec names, when it can be told without npm: a local
 * folder's package.json, or a registry spec (`name`, `name@range`,
 * `@scope/name@range`). Tarballs, URLs and git specs give undefined.
 */
export function packageNameOfSpec(spec: string): string | undefined {
  const folder = localFolderOf(spec);
  if (folder) return folderPackageName(folder);
  if (fs.existsSync(spec)) return undefined;
  const match = /^((?:@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*)(?:@[^/:]*)?$/i.exec(spec);
  return match?.[1];
}

function refuseXdogItself(spec: string): never {
  throw new XdogError(ErrorCodes.PLUGIN_INVALID, `${spec} is the package "xdog" itself, not a plugin`, {
    hint: 'plugins get xdog from the running installation; install a plugin package instead',
  });
}

/** What a spec installs, found by installing it into a throwaway prefix: its package name, version and plugins. */
interface Staged {
  name: string;
  version: string;
  plugins: DiscoveredPlugin[];
}

/** The plugins of a staged package; an invalid "xdog" field is reported against the spec, not the staging folder. */
function stagedPlugins(folder: string, spec: string): DiscoveredPlugin[] {
  try {
    return pluginsOfPackage(folder, 'user');
  } catch (error) {
    if (!XdogError.is(error)) throw error;
    throw new XdogError(error.code, `${error.message.replaceAll(folder, spec)}; nothing was installed`, { hint: error.hint, cause: error });
  }
}

/** The extension a staged package declares; its entry must be a file inside the package (its worker imports it later). */
function stagedExtension(folder: string, spec: string): DiscoveredExtension | undefined {
  let extension: DiscoveredExtension | undefined;
  try {
    extension = extensionOfPackage(folder);
  } catch (error) {
    if (!XdogError.is(error)) throw error;
    throw new XdogError(error.code, `${error.message.replaceAll(folder, spec)}; nothing was installed`, { hint: error.hint, cause: error });
  }
  if (extension && !fs.statSync(extension.entry, { throwIfNoEntry: false })?.isFile()) {
    throw new XdogError(ErrorCodes.PLUGIN_INVALID, `${spec} declares the extension entry ${path.relative(folder, extension.entry)}, which is not a file; nothing was installed`, {
      hint: 'build the package first, or fix "xdog.extension" in its package.json',
    });
  }
  return extension;
}

/**
 * Imports the staged plugins and resolves what they bind, so a plugin that
 * fails to load or binds a name it did not declare is refused now rather than
 * breaking every chat later. Messages name the spec, not the staging folder.
 */
async function checkLoads(plugins: DiscoveredPlugin[], folder: string, spec: string, cwd: string): Promise<void> {
  try {
    await verifyPluginsLoad(plugins, cwd);
  } catch (error) {
    if (!XdogError.is(error)) throw error;
    throw new XdogError(error.code, `${error.message.replaceAll(folder, spec)}; nothing was installed`, { hint: error.hint, cause: error });
  }
}

/**
 * Installs the spec into a temporary prefix and checks it there, so that a
 * package that is refused never touches the user plugin directory.
 */
async function stage(spec: string, target: string, cwd: string): Promise<Staged> {
  const staging = fs.mkdtempSync(path.join(os.tmpdir(), 'xdog-plugin-stage-'));
  try {
    ensurePrefix(staging);
    await npm(['install', '--save', target], staging);
    const names = installedNames(staging);
    if (names.length !== 1) {
      throw new XdogError(ErrorCodes.PLUGIN_INSTALL_FAILED, `cannot tell which package ${spec} installs: npm added ${names.length ? names.join(', ') : 'nothing'}`, {
        hint: 'install it by name (xdog plugins install NAME@VERSION) or from its folder',
      });
    }
    const name = names[0]!;
    if (name === 'xdog') refuseXdogItself(spec);
    const plugins = stagedPlugins(path.join(staging, 'node_modules', name), spec);
    const extension = plugins.length === 0 ? stagedExtension(path.join(staging, 'node_modules', name), spec) : undefined;
    if (extension) return { name, version: extension.version, plugins };
    if (plugins.length === 0) {
      throw new XdogError(ErrorCodes.PLUGIN_INVALID, `${spec} is not an xdog plugin: its package.json has no "xdog" field`, {
        hint: 'see docs/plugins.md for the "xdog" field; nothing was changed',
      });
    }
    checkDeclaredCommands(path.join(staging, 'node_modules', name), plugins);
    await checkLoads(plugins, path.join(staging, 'node_modules', name), spec, cwd);
    return { name, version: plugins[0]!.version, plugins };
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * Runs an npm install of `name` into the prefix with the installed copy moved
 * aside first, so that npm copies the package afresh (a changed folder of the
 * same version would otherwise be "up to date"); a failed install puts the
 * old copy back.
 */
async function replacePackage(dir: string, name: string, install: () => Promise<void>): Promise<void> {
  const installed = path.join(dir, 'node_modules', name);
  if (!fs.existsSync(installed)) return install();
  const aside = fs.mkdtempSync(path.join(dir, '.replacing-'));
  const kept = path.join(aside, 'package');
  fs.renameSync(installed, kept);
  try {
    await install();
  } catch (error) {
    fs.rmSync(installed, { recursive: true, force: true });
    fs.renameSync(kept, installed);
    throw error;
  } finally {
    fs.rmSync(aside, { recursive: true, force: true });
  }
}

/**
 * Installs an npm spec or a local folder; returns the plugins it brought. The
 * package is checked in a staging prefix first (a package named "xdog", a
 * malformed package.json, a missing or invalid "xdog" field, an entry outside
 * the package, a name conflict): a refused install leaves the user plugin
 * directory exactly as it was.
 */
export async function installPlugin(spec: string, options: InstallOptions = {}): Promise<DiscoveredPlugin[]> {
  const dir = options.userDir ?? userPluginDir();
  installedNames(dir); // a corrupt prefix manifest is reported before anything runs
  const folder = localFolderOf(spec);
  if (options.link && !folder) {
    throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `cannot link ${spec}: it is not a local folder`, { hint: 'link a plugin folder you are developing; install packages from npm' });
  }
  if (packageNameOfSpec(spec) === 'xdog') refuseXdogItself(spec);
  const staged = await stage(spec, folder ?? spec, options.cwd ?? process.cwd());
  const others = discoverPlugins({ ...options, userDir: dir }).filter((plugin) => !(plugin.source === 'user' && plugin.packageName === staged.name));
  assertNoConflicts([...others, ...staged.plugins]);
  ensurePrefix(dir);
  // A registry spec is pinned to the version that was checked; a folder or tarball is installed as given.
  const target = folder ?? (packageNameOfSpec(spec) === staged.name ? `${staged.name}@${staged.version}` : spec);
  await replacePackage(dir, staged.name, () => npm(['install', '--save', target], dir, { link: options.link }));
  syncCommands(dir, options);
  return pluginsOfPackage(path.join(dir, 'node_modules', staged.name), 'user');
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
  syncCommands(dir, options);
}
