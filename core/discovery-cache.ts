/**
 * A cache of which packages in a node_modules folder declare xdog plugins,
 * so discovery need not read every package.json (an installation's
 * node_modules holds hundreds) on each start. A folder's entry is keyed by
 * the modification times of the folder and of its `@scope` folders, which
 * change whenever npm adds, removes or replaces a package. On a hit, only
 * the remembered plugin packages are read (their manifests are always read
 * fresh), plus every symlinked package (npm link, workspaces), since those
 * change without touching node_modules. An entry is recorded only when the
 * folder has been still for a while, so a change within the file system's
 * timestamp granularity cannot hide behind an equal time. The cache is
 * only a cache: unreadable, oversized or invalid, it is ignored and rebuilt,
 * and failing to write it changes nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { LIMITS } from './limits.js';

/** How long a folder must have been unchanged before its listing is recorded. */
const SETTLED_MS = 2000;

const CacheSchema = z
  .object({
    version: z.literal(1),
    folders: z.record(z.string(), z.object({ key: z.string(), plugins: z.array(z.string()), at: z.number() }).strict()),
  })
  .strict();
type CacheData = z.infer<typeof CacheSchema>;

/** One node_modules folder as seen now: its key and its symlinked packages. */
export interface FolderListing {
  nodeModules: string;
  key: string;
  /** Package folders that are symlinks (always read: they change without touching node_modules). */
  linked: string[];
  /** True when the folder changed too recently to be recorded safely. */
  unsettled: boolean;
}

/** The folder's entries by name, so the key does not depend on the order the file system lists them in. */
function entries(dir: string): fs.Dirent[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch {
    return [];
  }
}

/** The key and symlinked packages of `nodeModules`, or undefined when it is not a folder. */
export function listFolder(nodeModules: string, now = Date.now()): FolderListing | undefined {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(nodeModules);
  } catch {
    return undefined;
  }
  if (!stat.isDirectory()) return undefined;
  const times = [stat.mtimeMs];
  const linked: string[] = [];
  for (const entry of entries(nodeModules)) {
    if (entry.name.startsWith('.')) continue;
    const full = path.join(nodeModules, entry.name);
    if (entry.isSymbolicLink()) linked.push(full);
    if (!entry.name.startsWith('@') || !entry.isDirectory()) continue;
    try {
      times.push(fs.statSync(full).mtimeMs);
    } catch {
      continue;
    }
    for (const inner of entries(full)) if (inner.isSymbolicLink()) linked.push(path.join(full, inner.name));
  }
  return { nodeModules, key: times.join(','), linked: linked.sort(), unsettled: times.some((time) => now - time < SETTLED_MS) };
}

/** The cache file's contents, read once per discovery and written back when something new was learnt. */
export class DiscoveryCache {
  readonly #file: string;
  #data: CacheData = { version: 1, folders: {} };
  #dirty = false;

  private constructor(file: string) {
    this.#file = file;
  }

  /** Reads `file` (a missing, oversized or invalid file is an empty cache). */
  static open(file: string): DiscoveryCache {
    const cache = new DiscoveryCache(file);
    try {
      if (fs.statSync(file).size <= LIMITS.discoveryCacheBytes) {
        const parsed = CacheSchema.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
        if (parsed.success) cache.#data = parsed.data;
      }
    } catch {
      // No cache yet, or one we cannot read: discovery reads everything and rebuilds it.
    }
    return cache;
  }

  /** The remembered plugin package folders of `listing`'s node_modules, when its key still matches. */
  lookup(listing: FolderListing): string[] | undefined {
    const entry = this.#data.folders[listing.nodeModules];
    return entry && entry.key === listing.key ? entry.plugins : undefined;
  }

  /** Records the plugin package folders found by a full scan of `listing`'s node_modules. */
  record(listing: FolderListing, plugins: readonly string[], now = Date.now()): void {
    if (listing.unsettled) return;
    this.#data.folders[listing.nodeModules] = { key: listing.key, plugins: [...plugins], at: now };
    const names = Object.keys(this.#data.folders);
    if (names.length > LIMITS.discoveryCacheFolders) {
      names.sort((a, b) => this.#data.folders[a]!.at - this.#data.folders[b]!.at);
      for (const name of names.slice(0, names.length - LIMITS.discoveryCacheFolders)) delete this.#data.folders[name];
    }
    this.#dirty = true;
  }

  /** Writes the file (atomically) when something was recorded; a failure leaves the old file. */
  save(): void {
    if (!this.#dirty) return;
    const temp = `${this.#file}.${process.pid}.tmp`;
    try {
      fs.mkdirSync(path.dirname(this.#file), { recursive: true });
      fs.writeFileSync(temp, JSON.stringify(this.#data));
      fs.renameSync(temp, this.#file);
      this.#dirty = false;
    } catch {
      // A read-only or full disk only costs the next start a full scan.
      fs.rmSync(temp, { force: true });
    }
  }
}
