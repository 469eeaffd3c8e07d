/**
 * CLI commands from plugin packages, through oclif's own plugin mechanism: a
 * package with an `oclif` section (`"oclif": {"commands": "./commands"}`) is
 * listed as a linked plugin in oclif's user plugin file, `<dataDir>/package.json`,
 * which the CLI reads at start-up. The list is rebuilt from what is installed
 * after every install and uninstall, so it never names a removed package.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { DiscoveredPlugin } from './discovery.js';
import { ErrorCodes, XdogError } from './errors.js';
import { LIMITS } from './limits.js';

interface OclifSection {
  commands?: unknown;
}

interface PackageWithOclif {
  name?: string;
  oclif?: OclifSection;
}

interface OclifPluginEntry {
  type: string;
  name: string;
  root?: string;
}

function readJson<T>(file: string): T | undefined {
  let text: string;
  try {
    if (fs.statSync(file).size > LIMITS.pluginManifestBytes) {
      throw new XdogError(ErrorCodes.PLUGIN_INVALID, `${file} is over the ${LIMITS.pluginManifestBytes}-byte limit for a package.json`);
    }
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw new XdogError(ErrorCodes.PLUGIN_INVALID, `${file} is not valid JSON: ${(error as Error).message}`, { hint: 'fix or remove that file' });
  }
}

/** The command ids ("topic verb") a package's oclif commands folder holds, or undefined without one. */
export function commandIdsOf(packageDir: string): string[] | undefined {
  const pkg = readJson<PackageWithOclif>(path.join(packageDir, 'package.json'));
  const target = pkg?.oclif?.commands;
  if (target === undefined) return undefined;
  if (typeof target !== 'string') {
    throw new XdogError(ErrorCodes.PLUGIN_INVALID, `${pkg?.name ?? packageDir}: oclif.commands must name a folder of command modules`, {
      hint: 'use "oclif": {"commands": "./commands"}',
    });
  }
  const root = path.resolve(packageDir, target);
  const ids: string[] = [];
  const walk = (dir: string, topics: string[]) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    for (const entry of entries) {
      if (entry.isDirectory()) walk(path.join(dir, entry.name), [...topics, entry.name]);
      else if (/\.(c|m)?js$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
        const base = entry.name.replace(/\.(c|m)?js$/, '');
        ids.push([...topics, ...(base === 'index' ? [] : [base])].join(' '));
      }
    }
  };
  walk(root, []);
  return ids.sort();
}

/**
 * Checks a package's oclif commands against its plugins' `provides.commands`:
 * each command is declared, and each declared command exists.
 */
export function checkDeclaredCommands(packageDir: string, plugins: readonly DiscoveredPlugin[]): void {
  const declared = [...new Set(plugins.flatMap((plugin) => plugin.provides.commands))].sort();
  const actual = commandIdsOf(packageDir) ?? [];
  const name = plugins[0]?.packageName ?? packageDir;
  const undeclared = actual.filter((id) => !declared.includes(id));
  if (undeclared.length) {
    throw new XdogError(ErrorCodes.PLUGIN_INVALID, `${name} adds command${undeclared.length > 1 ? 's' : ''} ${undeclared.map((id) => `"${id}"`).join(', ')} but does not declare ${undeclared.length > 1 ? 'them' : 'it'} in provides.commands`, {
      hint: 'list every command id ("topic verb") under provides.commands in its package.json "xdog" field',
    });
  }
  const missing = declared.filter((id) => !actual.includes(id));
  if (missing.length) {
    throw new XdogError(ErrorCodes.PLUGIN_INVALID, `${name} declares command${missing.length > 1 ? 's' : ''} ${missing.map((id) => `"${id}"`).join(', ')} but its oclif commands folder has no module for ${missing.length > 1 ? 'them' : 'it'}`, {
      hint: 'ship the command module (commands/<topic>/<verb>.js) and name the folder in "oclif": {"commands": ...}',
    });
  }
}

/**
 * Rewrites the linked-plugin entries of oclif's user plugin file so they are
 * exactly the installed packages that have commands. Other entries are kept.
 */
export function syncCommandPlugins(oclifUserFile: string, nodeModules: string, packageDirs: readonly string[]): void {
  const pjson = readJson<{ oclif?: { plugins?: OclifPluginEntry[] } & Record<string, unknown> } & Record<string, unknown>>(oclifUserFile) ?? { private: true };
  const ours = packageDirs.filter((dir) => commandIdsOf(dir) !== undefined).map((dir) => ({
    type: 'link',
    name: readJson<PackageWithOclif>(path.join(dir, 'package.json'))!.name!,
    root: dir,
  }));
  const managed = (entry: OclifPluginEntry) => entry.type === 'link' && typeof entry.root === 'string' && entry.root.startsWith(nodeModules + path.sep);
  const others = (pjson.oclif?.plugins ?? []).filter((entry) => !managed(entry));
  const next = { ...pjson, oclif: { schema: 1, ...pjson.oclif, plugins: [...others, ...ours] } };
  if (next.oclif.plugins.length === 0 && !fs.existsSync(oclifUserFile)) return;
  fs.mkdirSync(path.dirname(oclifUserFile), { recursive: true });
  const temporary = `${oclifUserFile}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, JSON.stringify(next, null, 2) + '\n');
  fs.renameSync(temporary, oclifUserFile);
}
