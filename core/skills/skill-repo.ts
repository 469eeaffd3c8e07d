/**
 * SkillRepo: the host's index of skills. By default it holds the skills that
 * installed xdog plugins package (their `provides.skills`); hosts add
 * directories by name. Building the index reads package.json files and skill
 * front matter only: no body enters a prompt and nothing is granted. Two
 * different definitions of one slug fail, naming both; nothing silently wins.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { XdogConfig } from '../config.js';
import { discoverPlugins, type DiscoveredPlugin } from '../discovery.js';
import { ErrorCodes, XdogError } from '../errors.js';
import { LIMITS } from '../limits.js';
import { SKILL_FILE, SKILL_SLUG_PATTERN, readSkillFolder } from './skill-file.js';

/** One skill in the index: what it is and where it comes from, without its body. */
export interface SkillInfo {
  slug: string;
  title?: string;
  description: string;
  /** The source label: `plugin:<name>` for packaged skills, the registered name for directories. */
  source: string;
  /** The SKILL.md file (real path). */
  file: string;
}

/** A skill with its instructions, read on demand. */
export interface SkillDocument extends SkillInfo {
  body: string;
}

/** Options of `new SkillRepo()`. */
export interface SkillRepoOptions {
  /** Include the skills of installed plugins (default true); false starts empty. */
  builtin?: boolean;
  /** Pin the packaged sources to these plugins instead of discovering them. */
  packaged?: readonly DiscoveredPlugin[];
  /** Where discovery walks up for node_modules (default process.cwd()). */
  cwd?: string;
}

/** Where one slug's folder is, as a source knows it. */
interface SkillLocation {
  slug: string;
  folder: string;
  /** The source label, when it differs per skill (a merged repo). */
  label?: string;
}

/** A place skills come from. */
interface SkillSource {
  /** `plugin:<name>` or the registered directory name. */
  label: string;
  /** The registered directory, for name-reuse checks. */
  directory?: string;
  locate(): SkillLocation[];
}

/** A source plus an optional slug filter (from `select`). */
interface SkillEntry {
  source: SkillSource;
  only?: ReadonlySet<string>;
}

const DIRECTORY_NAME = /^[A-Za-z0-9][\w.-]{0,63}$/;

/**
 * The folders where a plugin's packaged skill may live, in lookup order:
 * `skills/<slug>` beside the entry module, beside its source folder when the
 * entry is compiled into `dist/` (tsc copies no assets), then in the package root.
 */
export function packagedSkillCandidates(plugin: Pick<DiscoveredPlugin, 'dir' | 'entry'>, slug: string): string[] {
  const entryDir = path.dirname(plugin.entry);
  const relative = path.relative(plugin.dir, entryDir);
  const dirs = [entryDir];
  const parts = relative.split(path.sep);
  if (parts[0] === 'dist') dirs.push(path.join(plugin.dir, ...parts.slice(1)));
  dirs.push(plugin.dir);
  return [...new Set(dirs)].map((dir) => path.join(dir, 'skills', slug));
}

function packagedSource(plugin: DiscoveredPlugin): SkillSource {
  return {
    label: `plugin:${plugin.name}`,
    locate: () =>
      plugin.provides.skills.map((slug) => {
        const candidates = packagedSkillCandidates(plugin, slug);
        const folder = candidates.find((dir) => fs.existsSync(path.join(dir, SKILL_FILE)));
        if (!folder) {
          throw new XdogError(ErrorCodes.PLUGIN_INVALID, `plugin "${plugin.name}" (${plugin.packageName}) provides skill "${slug}" but has no ${SKILL_FILE} for it`, {
            hint: `looked in ${candidates.join(', ')}; ship the skill folder or drop "${slug}" from provides.skills`,
          });
        }
        return { slug, folder };
      }),
  };
}

function directorySource(name: string, directory: string): SkillSource {
  return {
    label: name,
    directory,
    // A registered directory that does not exist yet holds no skills; it is never created.
    locate: () => {
      let names: string[];
      try {
        names = fs.readdirSync(directory).sort();
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `cannot read skill directory "${name}" (${directory}): ${(error as Error).message}`);
      }
      return names
        .filter((slug) => SKILL_SLUG_PATTERN.test(slug) && fs.existsSync(path.join(directory, slug, SKILL_FILE)))
        .map((slug) => ({ slug, folder: path.join(directory, slug) }));
    },
  };
}

/** A source over any object with SkillRepo's public index. */
function repoSource(repo: Pick<SkillRepo, 'list'>): SkillSource {
  return {
    label: 'a merged skill repo',
    locate: () => repo.list().map((skill) => ({ slug: skill.slug, folder: path.dirname(skill.file), label: skill.source })),
  };
}

function realpath(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}

export class SkillRepo {
  #entries: SkillEntry[];
  readonly #discover?: () => readonly DiscoveredPlugin[];

  constructor(options: SkillRepoOptions = {}) {
    this.#entries = [];
    if (options.packaged) {
      this.#entries.push(...options.packaged.filter((p) => p.provides.skills.length).map((p) => ({ source: packagedSource(p) })));
    } else if (options.builtin !== false) {
      // Discovery is deferred to the first look at the index and cached.
      let cached: readonly DiscoveredPlugin[] | undefined;
      this.#discover = () => (cached ??= discoverPlugins({ cwd: options.cwd }));
    }
  }

  /** A repo over the packaged skills of these plugins only. */
  static fromPackaged(plugins: readonly DiscoveredPlugin[]): SkillRepo {
    return new SkillRepo({ packaged: plugins });
  }

  /**
   * The default repo of a host: packaged skills plus the directories the
   * config names under `skills.dirs` ("~/" is the home directory; relative
   * paths resolve against `cwd`).
   */
  static fromConfig(config: XdogConfig, cwd: string = process.cwd()): SkillRepo {
    const repo = new SkillRepo({ cwd });
    for (const [name, dir] of Object.entries(config.skills?.dirs ?? {})) {
      const expanded = dir === '~' || dir.startsWith('~/') ? path.join(os.homedir(), dir.slice(1)) : dir;
      repo.register({ directory: path.resolve(cwd, expanded), name });
    }
    return repo;
  }

  /** An empty repo (no packaged skills). */
  static empty(): SkillRepo {
    return new SkillRepo({ builtin: false });
  }

  /**
   * Adds a host directory whose sub-folders are skills. Chainable. The
   * directory need not exist; it is neither created nor read until the index
   * is. Reusing a name for another directory fails.
   */
  register(options: { directory: string; name: string }): this {
    if (!DIRECTORY_NAME.test(options.name)) {
      throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `invalid skill directory name ${JSON.stringify(options.name)}`, {
        hint: 'use letters, digits, ".", "_" or "-" (at most 64)',
      });
    }
    const directory = path.resolve(options.directory);
    const existing = this.#sources().find((source) => source.label === options.name);
    if (existing) {
      if (existing.directory === directory) return this;
      throw new XdogError(ErrorCodes.CONFLICT, `skill directory name "${options.name}" is already registered for ${existing.directory ?? existing.label}, not ${directory}`, {
        hint: 'register the other directory under another name',
      });
    }
    this.#entries.push({ source: directorySource(options.name, directory) });
    return this;
  }

  /** The index: every visible skill, sorted by slug. Reads front matter only. */
  list(): SkillInfo[] {
    return [...this.#index().values()].sort((a, b) => a.slug.localeCompare(b.slug));
  }

  /** The visible slugs. */
  slugs(): string[] {
    return this.list().map((skill) => skill.slug);
  }

  has(slug: string): boolean {
    return this.#index().has(slug);
  }

  /** One skill's index entry; an unknown slug fails. */
  get(slug: string): SkillInfo {
    const index = this.#index();
    const skill = index.get(slug);
    if (!skill) {
      throw new XdogError(ErrorCodes.NOT_FOUND, `unknown skill "${slug}"`, {
        hint: index.size ? `known skills: ${[...index.keys()].sort().join(', ')}` : 'this repo holds no skills; register a skill directory',
      });
    }
    return skill;
  }

  /** Reads one skill's body (the instructions). */
  read(slug: string): SkillDocument {
    const info = this.get(slug);
    const { body } = readSkillFolder(path.dirname(info.file));
    return { ...info, body };
  }

  /** A new repo showing only these slugs; an unknown slug fails. */
  select(slugs: Iterable<string>): SkillRepo {
    const wanted = new Set(slugs);
    for (const slug of wanted) this.get(slug);
    return this.#derive(this.#allEntries().map((entry) => ({ source: entry.source, only: intersect(entry.only, wanted) })));
  }

  /** A new repo with the skills of both; two definitions of one slug fail when the index is read. */
  merge(other: SkillRepo): SkillRepo {
    // Another copy of xdog (a plugin with its own install) has its own class: merge it through its public index.
    const theirs = #entries in other ? other.#allEntries() : [{ source: repoSource(other) }];
    const merged = this.#derive([...this.#allEntries(), ...theirs]);
    merged.#index();
    return merged;
  }

  #derive(entries: SkillEntry[]): SkillRepo {
    const repo = SkillRepo.empty();
    repo.#entries = entries;
    return repo;
  }

  #allEntries(): SkillEntry[] {
    const packaged = this.#discover ? this.#discover().filter((p) => p.provides.skills.length).map((p) => ({ source: packagedSource(p) })) : [];
    return [...packaged, ...this.#entries];
  }

  #sources(): SkillSource[] {
    return this.#entries.map((entry) => entry.source);
  }

  #index(): Map<string, SkillInfo> {
    const index = new Map<string, SkillInfo>();
    for (const entry of this.#allEntries()) {
      for (const { slug, folder, label = entry.source.label } of entry.source.locate()) {
        if (entry.only && !entry.only.has(slug)) continue;
        const file = realpath(path.join(folder, SKILL_FILE));
        const previous = index.get(slug);
        if (previous) {
          if (previous.file === file) continue;
          throw new XdogError(ErrorCodes.CONFLICT, `skill "${slug}" is defined twice: by ${previous.source} (${previous.file}) and by ${label} (${file})`, {
            hint: 'remove or rename one of them; no source overrides another',
          });
        }
        const { frontMatter } = readSkillFolder(folder);
        index.set(slug, { slug, title: frontMatter.title, description: frontMatter.description, source: label, file });
        if (index.size > LIMITS.skillsPerRepo) {
          throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `the skill index holds more than ${LIMITS.skillsPerRepo} skills`, {
            hint: 'register fewer skill directories or select the skills you need',
          });
        }
      }
    }
    return index;
  }
}

function intersect(current: ReadonlySet<string> | undefined, wanted: ReadonlySet<string>): ReadonlySet<string> {
  return current ? new Set([...current].filter((slug) => wanted.has(slug))) : wanted;
}
