/**
 * The declarative parts of a plugin definition that the kernel carries out:
 * `hooks` (tapped on every agent, disposed when it closes) and `skills` (the
 * packaged skill folder, checked against `provides.skills`). `tools` is bound
 * by core/contributions.ts with the plugin's other contributions.
 */
import fs from 'node:fs';
import type { Hook } from 'tapable';
import path from 'node:path';
import { tapHook, type Disposer } from '../hooks/tap.js';
import type { DiscoveredPlugin } from './discovery.js';
import { ErrorCodes, XdogError } from './errors.js';
import type { Kernel } from './kernel.js';
import { AGENT_HOOK_NAMES, type PluginHooks, type XdogPlugin } from './plugin.js';
import { SKILL_FILE, SKILL_SLUG_PATTERN } from './skills/skill-file.js';
import { packagedSkillCandidates } from './skills/skill-repo.js';

/** Taps the plugin's agent hooks on each agent the kernel creates; the taps go when the agent closes. */
export function tapPluginHooks(kernel: Kernel, name: string, hooks: PluginHooks): void {
  kernel.hooks.agentCreated.tap(name, (agent) => {
    const disposers: Disposer[] = [];
    for (const hook of AGENT_HOOK_NAMES) {
      const fn = hooks[hook];
      if (fn) disposers.push(tapHook(agent.hooks[hook] as Hook<unknown, unknown>, name, fn as (...args: unknown[]) => unknown));
    }
    agent.onClose(() => {
      for (const dispose of disposers) dispose();
    });
  });
}

/**
 * Checks the `skills` folder of a discovered plugin: it is where xdog looks
 * for packaged skills, and its skill folders are exactly `provides.skills`.
 */
export function checkPackagedSkills(plugin: XdogPlugin, discovered: DiscoveredPlugin): void {
  const where = `plugin "${plugin.name}" (${discovered.packageName}, ${discovered.dir})`;
  const folder = path.resolve(discovered.dir, plugin.skills!);
  const lookedIn = packagedSkillCandidates(discovered, 'x').map((candidate) => path.dirname(candidate));
  if (!lookedIn.includes(folder)) {
    throw new XdogError(ErrorCodes.PLUGIN_INVALID, `${where}: skills folder ${folder} is not where xdog finds packaged skills`, {
      hint: `use one of: ${lookedIn.map((dir) => `./${path.relative(discovered.dir, dir) || '.'}`.replace(/\/\.$/, '')).join(', ')}`,
    });
  }
  let entries: string[] = [];
  try {
    entries = fs.readdirSync(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const present = entries.filter((slug) => SKILL_SLUG_PATTERN.test(slug) && fs.existsSync(path.join(folder, slug, SKILL_FILE))).sort();
  const declared = discovered.provides.skills;
  const undeclared = present.filter((slug) => !declared.includes(slug));
  if (undeclared.length) {
    throw new XdogError(ErrorCodes.PLUGIN_INVALID, `${where} ships skill${undeclared.length > 1 ? 's' : ''} ${undeclared.map((slug) => `"${slug}"`).join(', ')} but does not declare ${undeclared.length > 1 ? 'them' : 'it'} in provides.skills`, {
      hint: 'add the slugs to provides.skills in its package.json "xdog" field',
    });
  }
  const missing = declared.filter((slug) => !present.includes(slug));
  if (missing.length) {
    throw new XdogError(ErrorCodes.PLUGIN_INVALID, `${where} declares skill${missing.length > 1 ? 's' : ''} ${missing.map((slug) => `"${slug}"`).join(', ')} but ${folder} has no ${SKILL_FILE} for ${missing.length > 1 ? 'them' : 'it'}`, {
      hint: `ship ${path.join(folder, '<slug>', SKILL_FILE)} or drop the slug from provides.skills`,
    });
  }
}
