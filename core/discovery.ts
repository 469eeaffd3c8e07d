/**
 * Plugin discovery. It reads package.json files only and imports nothing:
 * an installed package is a plugin when its package.json has an `"xdog"`
 * field naming its entry and what it provides. Search order: the xdog
 * installation's own list (builtin), the host project's node_modules (walking
 * up from the working directory), the installation's node_modules, then the
 * user plugin directory. A plugin name or provided name seen twice fails,
 * naming both packages.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { readRegularFileSync } from './bounded-read.js';
import { ErrorCodes, XdogError } from './errors.js';
import { LIMITS } from './limits.js';
import { DiscoveryCache, listFolder } from './discovery-cache.js';
import { cacheDir, userPluginDir } from './paths.js';
import { terminalSafe } from './terminal-text.js';
import { PROVIDE_KINDS, type PluginProvides } from './plugin.js';

export type PluginSource = 'builtin' | 'project' | 'user';

export interface DiscoveredPlugin {
  name: string;
  /** The npm package that holds it. */
  packageName: string;
  version: string;
  description?: string;
  source: PluginSource;
  /** The package folder. */
  dir: string;
  /** Absolute path of the entry module (not imported by discovery). */
  entry: string;
  provides: Required<PluginProvides>;
}

const NameList = z.array(z.string().min(1));
const ProvidesSchema = z
  .object({
    tools: NameList.optional(),
    skills: NameList.optional(),
    providers: NameList.optional(),
    capabilities: NameList.optional(),
    commands: NameList.optional(),
    channels: NameList.optional(),
  })
  .strict();
const PluginEntrySchema = z.object({ name: z.string().min(1), entry: z.string().min(1), provides: ProvidesSchema.optional() }).strict();
/** The `"xdog"` field: one plugin, a bundle of several (as xdog itself ships), or an extension (run in its own worker process). */
const XdogFieldSchema = z.union([
  z.object({ entry: z.string().min(1), provides: ProvidesSchema.optional() }).strict(),
  z.object({ plugins: z.array(PluginEntrySchema) }).strict(),
  z.object({ extension: z.string().min(1) }).strict(),
]);

/** An installed extension package: found by reading its package.json only. */
export interface DiscoveredExtension {
  /** The extension id: its package name. */
  id: string;
  version: string;
  dir: string;
  /** Absolute path of the module that exports `setup(api)` (imported only by its worker). */
  entry: string;
}

export interface PackageJson {
  name?: string;
  version?: string;
  description?: string;
  xdog?: unknown;
}

export interface DiscoveryOptions {
  /** Where to start walking up for node_modules (default: process.cwd()). */
  cwd?: string;
  /** The xdog installation root (default: found from this file); null skips builtin and install sources. */
  installRoot?: string | null;
  /** The user plugin directory (default: `$XDG_DATA_HOME/xdog/plugins`). */
  userDir?: string | null;
  /**
   * Told about each installed package skipped because its package.json is not valid JSON or is too
   * large (default: one notice per file on stderr). One broken dependency must not stop every command.
   */
  onSkipped?: (notice: string) => void;
  /** The discovery cache (default: `$XDG_CACHE_HOME/xdog/discovery.json`); null reads every package.json. */
  cacheFile?: string | null;
}

const noticed = new Set<string>();
/** The default `onSkipped`: each notice once per process (discovery runs more than once per command). */
function noticeOnStderr(notice: string): void {
  if (noticed.has(notice)) return;
  noticed.add(notice);
  process.stderr.write(`xdog: notice: ${terminalSafe(notice)}\n`);
}

/** The folder of the installed xdog package (the one holding this file). */
export function xdogInstallRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = readPackageJson(path.join(dir, 'package.json'));
    if (pkg?.name === 'xdog') return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new XdogError(ErrorCodes.INVALID_STATE, 'cannot find the xdog package root above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
}

/** A package.json, or undefined when there is none; too large or not JSON is a PLUGIN_INVALID error naming the file. */
export function readPackageJson(file: string): PackageJson | undefined {
  let text: string;
  try {
    text = readRegularFileSync(file, { maxBytes: LIMITS.pluginManifestBytes, what: 'package manifest', code: ErrorCodes.PLUGIN_INVALID }).toString('utf8');
  } catch (error) {
    if (XdogError.is(error)) throw error;
    return undefined;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new XdogError(ErrorCodes.PLUGIN_INVALID, `${file} is not valid JSON: ${(error as Error).message}`, {
      hint: 'fix or remove that package',
    });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new XdogError(ErrorCodes.PLUGIN_INVALID, `${file} is not a JSON object`, { hint: 'fix or remove that package' });
  }
  return parsed as PackageJson;
}

function normaliseProvides(provides: PluginProvides | undefined): Required<PluginProvides> {
  return {
    tools: provides?.tools ?? [],
    skills: provides?.skills ?? [],
    providers: provides?.providers ?? [],
    capabilities: provides?.capabilities ?? [],
    commands: provides?.commands ?? [],
    channels: provides?.channels ?? [],
  };
}

/** The plugins one package declares, or none when it has no `"xdog"` field. */
export function pluginsOfPackage(dir: string, source: PluginSource): DiscoveredPlugin[] {
  return pluginsOfManifest(dir, readPackageJson(path.join(dir, 'package.json')), source);
}

function pluginsOfManifest(dir: string, pkg: PackageJson | undefined, source: PluginSource): DiscoveredPlugin[] {
  const file = path.join(dir, 'package.json');
  if (!pkg || pkg.xdog === undefined) return [];
  const parsed = XdogFieldSchema.safeParse(pkg.xdog);
  if (!parsed.success || typeof pkg.name !== 'string') {
    const problem = parsed.success ? 'it has no "name"' : parsed.error.issues.map((i) => `${i.path.join('.') || 'xdog'}: ${i.message}`).join('; ');
    throw new XdogError(ErrorCodes.PLUGIN_INVALID, `invalid "xdog" field in ${file}: ${problem}`, {
      hint: 'the field is {"entry": "./dist/index.js", "provides": {"tools": [...]}}; see docs/plugins.md',
    });
  }
  if ('extension' in parsed.data) return [];
  const base = { packageName: pkg.name, version: pkg.version ?? '0.0.0', description: pkg.description, source, dir };
  const entries = 'plugins' in parsed.data ? parsed.data.plugins : [{ name: pkg.name, ...parsed.data }];
  return entries.map((entry) => ({
    ...base,
    name: entry.name,
    entry: entryInside(dir, entry.entry, file),
    provides: normaliseProvides(entry.provides),
  }));
}

/** The extension a package declares (`"xdog": {"extension": "./index.js"}`), or undefined when it declares none. */
export function extensionOfPackage(dir: string): DiscoveredExtension | undefined {
  const file = path.join(dir, 'package.json');
  const pkg = readPackageJson(file);
  if (!pkg || pkg.xdog === undefined) return undefined;
  const parsed = XdogFieldSchema.safeParse(pkg.xdog);
  if (!parsed.success || !('extension' in parsed.data)) return undefined;
  if (typeof pkg.name !== 'string') throw new XdogError(ErrorCodes.PLUGIN_INVALID, `invalid "xdog" field in ${file}: it has no "name"`, { hint: 'an extension package needs a "name"' });
  return { id: pkg.name, version: pkg.version ?? '0.0.0', dir, entry: entryInside(dir, parsed.data.extension, file) };
}

/**
 * Finds the enabled extension `id`: in `extensionDir/<id>` when the config names an
 * `extension_dir`, and where plugins are found (the project's node_modules walking up, the
 * installation's, the user plugin directory); undefined when nowhere. Reads package.json files
 * only. The same id in `extension_dir` and installed is an error naming both, never a silent pick.
 */
export function findExtension(id: string, options: Pick<DiscoveryOptions, 'cwd' | 'installRoot' | 'userDir'> & { extensionDir?: string } = {}): DiscoveredExtension | undefined {
  const installRoot = options.installRoot === undefined ? xdogInstallRoot() : options.installRoot;
  const userDir = options.userDir === undefined ? userPluginDir() : options.userDir;
  const places = [...nodeModulesUpFrom(options.cwd ?? process.cwd())];
  if (installRoot) places.push(path.join(installRoot, 'node_modules'));
  if (userDir) places.push(path.join(userDir, 'node_modules'));
  let installed: DiscoveredExtension | undefined;
  for (const nodeModules of places) {
    installed = extensionOfPackage(path.join(nodeModules, id));
    if (installed) break;
  }
  const listed = options.extensionDir === undefined ? undefined : extensionInDir(options.extensionDir, id);
  if (listed && installed) {
    throw new XdogError(ErrorCodes.PLUGIN_CONFLICT, `extension ${id} is both in extension_dir (${listed.dir}) and installed (${installed.dir})`, {
      hint: `remove one of them (xdog plugins uninstall ${id}, or delete the folder in extension_dir)`,
    });
  }
  return listed ?? installed;
}

/** `dir/<id>`, an extension package whose name must be `id` (a folder named after another package is an error). */
function extensionInDir(dir: string, id: string): DiscoveredExtension | undefined {
  const found = extensionOfPackage(path.join(dir, id));
  if (found && found.id !== id) {
    throw new XdogError(ErrorCodes.PLUGIN_INVALID, `${found.dir} holds the extension package "${found.id}", not "${id}"`, { hint: `name the folder after its package: ${path.join(dir, found.id)}` });
  }
  return found;
}

/** An installed extension and where it was found (for `xdog plugins list`). */
export interface ListedExtension extends DiscoveredExtension {
  source: PluginSource;
}

/**
 * Every installed extension, where findExtension looks (the project's
 * node_modules walking up, the installation's, the user plugin directory),
 * each id once (the first place wins, as for findExtension). Reads
 * package.json files only; a package that cannot be read is skipped (plugin
 * discovery reports it).
 */
export function discoverExtensions(options: Pick<DiscoveryOptions, 'cwd' | 'installRoot' | 'userDir'> = {}): ListedExtension[] {
  const installRoot = options.installRoot === undefined ? xdogInstallRoot() : options.installRoot;
  const userDir = options.userDir === undefined ? userPluginDir() : options.userDir;
  const places: Array<[string, PluginSource]> = nodeModulesUpFrom(options.cwd ?? process.cwd()).map((dir) => [dir, 'project']);
  if (installRoot) places.push([path.join(installRoot, 'node_modules'), 'builtin']);
  if (userDir) places.push([path.join(userDir, 'node_modules'), 'user']);
  const found = new Map<string, ListedExtension>();
  for (const [nodeModules, source] of places) {
    for (const dir of packageDirs(nodeModules)) {
      let extension: DiscoveredExtension | undefined;
      try {
        extension = extensionOfPackage(dir);
      } catch (error) {
        if (!XdogError.is(error, ErrorCodes.PLUGIN_INVALID)) throw error;
      }
      if (extension && !found.has(extension.id)) found.set(extension.id, { ...extension, source });
    }
  }
  return [...found.values()];
}

/** The entry's absolute path; one outside the package folder would load another package's code under this name. */
function entryInside(dir: string, entry: string, file: string): string {
  const absolute = path.resolve(dir, entry);
  const relative = path.relative(dir, absolute);
  if (relative === '' || relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) {
    throw new XdogError(ErrorCodes.PLUGIN_INVALID, `invalid "xdog" field in ${file}: entry ${JSON.stringify(entry)} is outside the package folder`, {
      hint: 'name a module inside the package, e.g. "./dist/index.js"',
    });
  }
  return absolute;
}

/** Package folders directly inside one node_modules folder (scoped ones included). */
function packageDirs(nodeModules: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(nodeModules);
  } catch {
    return [];
  }
  const dirs: string[] = [];
  for (const name of names.sort()) {
    if (name.startsWith('.')) continue;
    const full = path.join(nodeModules, name);
    if (name.startsWith('@')) {
      let scoped: string[] = [];
      try {
        scoped = fs.readdirSync(full);
      } catch {
        /* not a folder */
      }
      for (const inner of scoped.sort()) dirs.push(path.join(full, inner));
    } else {
      dirs.push(full);
    }
  }
  return dirs;
}

function nodeModulesUpFrom(start: string): string[] {
  const found: string[] = [];
  let dir = path.resolve(start);
  for (;;) {
    found.push(path.join(dir, 'node_modules'));
    const parent = path.dirname(dir);
    if (parent === dir) return found;
    dir = parent;
  }
}

function realpathOr(dir: string): string {
  try {
    return fs.realpathSync(dir);
  } catch {
    return dir;
  }
}

/** Finds every installed plugin. Reads JSON only; imports nothing. */
export function discoverPlugins(options: DiscoveryOptions = {}): DiscoveredPlugin[] {
  const installRoot = options.installRoot === undefined ? xdogInstallRoot() : options.installRoot;
  const userDir = options.userDir === undefined ? userPluginDir() : options.userDir;
  const cache = options.cacheFile === null ? undefined : DiscoveryCache.open(options.cacheFile ?? path.join(cacheDir(), 'discovery.json'));
  const seenDirs = new Set<string>();
  /** Real paths of the package folders that declare plugins (a folder seen twice counts for both places). */
  const pluginDirs = new Set<string>();
  const plugins: DiscoveredPlugin[] = [];
  const onSkipped = options.onSkipped ?? noticeOnStderr;
  /** Set when a package was skipped: that folder is scanned in full again next time, so the notice repeats until it is fixed. */
  let skipped = false;
  const visit = (dir: string, source: PluginSource): boolean => {
    const real = realpathOr(dir);
    if (seenDirs.has(real)) return pluginDirs.has(real);
    seenDirs.add(real);
    let pkg: PackageJson | undefined;
    try {
      pkg = readPackageJson(path.join(dir, 'package.json'));
    } catch (error) {
      if (!XdogError.is(error, ErrorCodes.PLUGIN_INVALID)) throw error;
      onSkipped(`skipped a package while looking for plugins: ${error.message}`);
      skipped = true;
      return false;
    }
    const found = pluginsOfManifest(dir, pkg, source);
    if (found.length > 0) pluginDirs.add(real);
    plugins.push(...found);
    return found.length > 0;
  };
  const scan = (nodeModules: string, source: PluginSource) => {
    const listing = cache && listFolder(nodeModules);
    const known = listing && cache.lookup(listing);
    if (known) {
      // Only the packages known to declare plugins, and linked ones; in the usual order.
      const wanted = new Set([...known, ...listing.linked]);
      for (const dir of packageDirs(nodeModules)) if (wanted.has(dir)) visit(dir, source);
      return;
    }
    skipped = false;
    const found = packageDirs(nodeModules).filter((dir) => visit(dir, source));
    if (listing && !skipped) cache.record(listing, found);
  };

  if (installRoot) {
    // xdog's own package.json must be readable: no skipping that one.
    const real = realpathOr(installRoot);
    seenDirs.add(real);
    const own = pluginsOfPackage(installRoot, 'builtin');
    // Remembered as a plugin package wherever a node_modules links it, for discoveries without installRoot.
    if (own.length > 0) pluginDirs.add(real);
    plugins.push(...own);
  }
  for (const nodeModules of nodeModulesUpFrom(options.cwd ?? process.cwd())) scan(nodeModules, 'project');
  if (installRoot) scan(path.join(installRoot, 'node_modules'), 'builtin');
  if (userDir) scan(path.join(userDir, 'node_modules'), 'user');
  cache?.save();

  assertNoConflicts(plugins);
  return plugins;
}

function describe(plugin: DiscoveredPlugin): string {
  return `${plugin.packageName}@${plugin.version} (${plugin.source}: ${plugin.dir})`;
}

/** Fails when two plugins share a name, or provide the same name of one kind. */
export function assertNoConflicts(plugins: readonly DiscoveredPlugin[]): void {
  const owners = new Map<string, DiscoveredPlugin>();
  const claim = (key: string, what: string, plugin: DiscoveredPlugin) => {
    const previous = owners.get(key);
    if (previous) {
      throw new XdogError(ErrorCodes.PLUGIN_CONFLICT, `${what} is provided by both ${describe(previous)} and ${describe(plugin)}`, {
        hint: `uninstall one of them (xdog plugins uninstall ${plugin.packageName})`,
      });
    }
    owners.set(key, plugin);
  };
  for (const plugin of plugins) {
    claim(`plugin:${plugin.name}`, `plugin "${plugin.name}"`, plugin);
    for (const kind of PROVIDE_KINDS) {
      for (const name of plugin.provides[kind]) claim(`${kind}:${name}`, `${kind.replace(/s$/, '')} "${name}"`, plugin);
    }
  }
}

/** Whether a discovered plugin's entry file exists (a stat, not an import). */
export function entryExists(plugin: DiscoveredPlugin): boolean {
  return fs.existsSync(plugin.entry);
}
