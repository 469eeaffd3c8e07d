/**
 * CapabilityAssembly: the opened capabilities of one set (or of several sets
 * combined), shared by every agent created from it. Tools and skills combine
 * by additive union: host repos add to what the capabilities contribute and
 * can never remove it; one name from two different sources fails, naming
 * both. There are no enable lists. Agents close before their sets do.
 * Restoring goes through the assembly so a restored agent gets today's
 * tools and skills: a snapshot names skills and a model, it grants neither.
 */
import { ErrorCodes, XdogError, describeError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import type { ModelStreamFn } from '../model/types.js';
import { Agent } from '../agent/agent.js';
import type { ToolRepo } from '../agent/tool-repo.js';
import type { AgentTool } from '../agent/tool-types.js';
import type { AgentConfig, AgentOptions } from '../agent/types.js';
import { SkillRepo } from '../skills/skill-repo.js';
import type { RestoreOptions } from '../agent/snapshot.js';
import { SkillPlacement } from '../skills/skill-placement.js';
import { SKILL_TOOL_NAME, createSkillTool } from '../skills/skill-tool.js';
import type { CapabilityBinding, CapabilityScope } from './types.js';

/** One opened capability. */
export interface OpenedCapability {
  name: string;
  binding: CapabilityBinding;
}

/** What the set hands its assembly. */
export interface AssemblyOptions {
  toolRepo?: ToolRepo;
  skillRepo?: SkillRepo;
  /** A private kernel the set created; closed with the assembly. */
  ownedKernel?: Kernel;
  /** The scope and owner id the set was opened for (they name its sources in a combined assembly). */
  scope?: CapabilityScope;
  hostId?: string;
}

/** Options of `createAgent`: the agent's config, supplemental repos, and the ordinary Agent options except tools and skills (no second enable list). */
export interface AssemblyAgentOptions extends Omit<AgentOptions, 'tools' | 'skills'> {
  config: AgentConfig;
  /** Added to the set's and the capabilities' tools. */
  toolRepo?: ToolRepo;
  /** Added to the set's and the capabilities' skills. */
  skillRepo?: SkillRepo;
}

/** Options of `restoreAgent` and `restoreAgentParts`: the live inputs the host re-supplies, and the models it accepts. */
export interface AssemblyRestoreOptions extends AssemblyAgentOptions, RestoreOptions {}

type Sourced<T> = { item: T; source: string };

export class CapabilityAssembly {
  readonly #opened: OpenedCapability[];
  readonly #options: AssemblyOptions;
  /** The sets' assemblies this one combines; empty for a set's own assembly. */
  readonly #members: readonly CapabilityAssembly[];
  readonly #agents = new Set<Agent>();
  #state: 'open' | 'closing' | 'closed' = 'open';

  /** Use `CapabilitySet.open()`, or `CapabilityAssembly.combine()` for several sets. */
  constructor(opened: OpenedCapability[], options: AssemblyOptions = {}, members: readonly CapabilityAssembly[] = []) {
    this.#opened = opened;
    this.#options = options;
    this.#members = members;
  }

  /**
   * One assembly over several opened sets (an application set and a session
   * set, say): agents get the additive union of all of them, and a name two
   * sets contribute differently fails naming both. It does not own the sets:
   * closing it closes none of them, and each still refuses to close while an
   * agent created here is open.
   */
  static combine(...assemblies: CapabilityAssembly[]): CapabilityAssembly {
    if (assemblies.length === 0) {
      throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'CapabilityAssembly.combine() needs at least one opened set', { hint: 'pass the assemblies that CapabilitySet.open() returned' });
    }
    for (const assembly of assemblies) assembly.#assertOpen('CapabilityAssembly.combine()');
    const members = [...new Set(assemblies.flatMap((assembly) => assembly.#sets()))];
    return new CapabilityAssembly([], {}, members);
  }

  /** The names of the opened capabilities, in open order (set by set when combined). */
  get capabilities(): readonly string[] {
    return this.#sets().flatMap((set) => set.#opened.map((entry) => entry.name));
  }

  get isClosed(): boolean {
    return this.#state === 'closed';
  }

  /** The skill index agents get: set skills, capability skills and `extra`, by union. */
  composeSkills(extra?: SkillRepo): SkillRepo {
    const repos: SkillRepo[] = [
      ...this.#sets().flatMap((set) => (set.#options.skillRepo ? [set.#options.skillRepo] : [])),
      ...this.#sets().flatMap((set) => set.#opened.flatMap(({ binding }) => (binding.skills ? [binding.skills] : []))),
      ...(extra ? [extra] : []),
    ];
    // SkillRepo.merge names both definitions of a conflicting slug.
    return repos.reduce((merged, repo) => merged.merge(repo), SkillRepo.empty());
  }

  /**
   * The tools agents get: the set's host tools, `existing`, and the
   * capabilities' tools, by union; plus a read-only `skill` tool over the
   * composed skills when there are any and no source supplies one.
   */
  composeTools(existing?: ToolRepo | readonly AgentTool[], skills: SkillRepo = this.composeSkills()): AgentTool[] {
    this.#assertOpen('composeTools()');
    const sourced: Sourced<AgentTool>[] = [
      ...this.#sets().flatMap((set) => toolsOf(set.#options.toolRepo, this.#source("the set's tool repo", set))),
      ...toolsOf(existing, "the agent's tool repo"),
      ...this.#sets().flatMap((set) =>
        set.#opened.flatMap(({ name, binding }) => (binding.tools ?? []).map((item) => ({ item, source: this.#source(`capability "${name}"`, set) }))),
      ),
    ];
    const byName = new Map<string, Sourced<AgentTool>>();
    for (const entry of sourced) {
      const previous = byName.get(entry.item.name);
      if (previous && previous.item !== entry.item) {
        throw new XdogError(ErrorCodes.CONFLICT, `tool "${entry.item.name}" is contributed by both ${previous.source} and ${entry.source}`, {
          hint: 'rename or drop one of them; no source overrides another',
        });
      }
      if (!previous) byName.set(entry.item.name, entry);
    }
    if (!byName.has(SKILL_TOOL_NAME) && skills.list().length > 0) {
      byName.set(SKILL_TOOL_NAME, { item: createSkillTool(skills), source: 'the assembly' });
    }
    return [...byName.values()].map((entry) => entry.item);
  }

  /** Publishes the composed tools to an idle agent. */
  publishTools(agent: Agent, existing?: ToolRepo | readonly AgentTool[]): void {
    agent.setTools(this.composeTools(existing));
  }

  /**
   * An ordinary Agent with the union of contributions. The assembly tracks
   * it: close it before closing the assembly.
   */
  createAgent(streamFn: ModelStreamFn, options: AssemblyAgentOptions): Agent {
    this.#assertOpen('createAgent()');
    const { config, toolRepo, skillRepo, preparedSkills = [], ...agentOptions } = options;
    const skills = this.composeSkills(skillRepo);
    const prepared = preparedSkills.map((skill) => skill.slug);
    const defaults = SkillPlacement.read(skills, this.defaultSessionSkills().filter((slug) => !prepared.includes(slug)));
    const agent = new Agent(streamFn, config, {
      ...agentOptions,
      tools: this.composeTools(toolRepo, skills),
      skills,
      preparedSkills: [...preparedSkills, ...defaults],
    });
    // A combined assembly's agents hold every member set open too.
    const owners = [this, ...this.#members];
    for (const owner of owners) owner.#agents.add(agent);
    agent.onClose(() => owners.forEach((owner) => owner.#agents.delete(agent)));
    return agent;
  }

  /** The session skills the capabilities ask agents to start with (`CapabilityBinding.sessionSkills`), in open order. */
  defaultSessionSkills(): string[] {
    const slugs = this.#sets().flatMap((set) => set.#opened.flatMap(({ binding }) => binding.sessionSkills ?? []));
    return [...new Set(slugs)];
  }

  /**
   * Restores a whole snapshot (`agent.dump()`) into a new agent of this
   * assembly. The host re-supplies config, repos and `allowedModels` (default:
   * only `config.model`); the agent gets today's tools and skills, and the
   * snapshot's skill lifecycle is checked against them: a saved skill the
   * assembly does not provide, or whose body changed, fails, as does a model
   * outside `allowedModels`. Then the capabilities' current default session
   * skills that are missing are added; pending turn skills stay pending.
   * On any failure no agent is left open.
   */
  async restoreAgent(streamFn: ModelStreamFn, snapshot: unknown, options: AssemblyRestoreOptions): Promise<Agent> {
    return this.#restoreInto(streamFn, options, (agent, restoreOptions) => agent.restore(snapshot, restoreOptions));
  }

  /** `restoreAgent` for a split snapshot: `agent.dumpMetadata()` plus the decoded messages. */
  async restoreAgentParts(streamFn: ModelStreamFn, metadata: unknown, messages: readonly unknown[], options: AssemblyRestoreOptions): Promise<Agent> {
    return this.#restoreInto(streamFn, options, (agent, restoreOptions) => agent.restoreParts(metadata, messages, restoreOptions));
  }

  async #restoreInto(streamFn: ModelStreamFn, options: AssemblyRestoreOptions, restore: (agent: Agent, options: RestoreOptions) => void): Promise<Agent> {
    const { allowedModels, ...agentOptions } = options;
    const agent = this.createAgent(streamFn, agentOptions);
    try {
      try {
        restore(agent, { allowedModels: allowedModels ?? [agentOptions.config.model] });
      } catch (error) {
        if (!XdogError.is(error) || error.code !== ErrorCodes.SNAPSHOT_INVALID) throw error;
        throw new XdogError(error.code, `cannot restore into this capability assembly (${this.#describe()}): ${error.message}`, { hint: error.hint, cause: error });
      }
      const session = agent.activeSkills.filter((skill) => skill.scope === 'session').map((skill) => skill.slug);
      const missing = this.defaultSessionSkills().filter((slug) => !session.includes(slug));
      if (missing.length) agent.setActiveSkills([...session, ...missing], 'session');
    } catch (error) {
      await agent.close();
      throw error;
    }
    return agent;
  }

  /**
   * Releases every capability, in reverse open order. Fails while an agent
   * created from this assembly is still open (close agents first).
   */
  async close(): Promise<void> {
    if (this.#state !== 'open') return;
    const open = [...this.#agents].filter((agent) => !agent.isClosed);
    if (open.length) {
      throw new XdogError(ErrorCodes.INVALID_STATE, `cannot close the capability set: ${open.length} agent(s) created from it are still open`, {
        hint: 'close the agents first (await agent.close()), then the set',
      });
    }
    if (this.#members.length) {
      // A combination owns no set: the host closes each set it opened.
      this.#state = 'closed';
      return;
    }
    this.#state = 'closing';
    try {
      await CapabilityAssembly.closeAll(this.#opened, this.#options.ownedKernel);
    } finally {
      this.#state = 'closed';
    }
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** @internal Closes bindings in reverse order, then the kernel; every close runs, then the first failures are thrown together. */
  static async closeAll(opened: readonly OpenedCapability[], kernel?: Kernel): Promise<void> {
    const errors: string[] = [];
    for (const { name, binding } of [...opened].reverse()) {
      try {
        await binding.close?.();
      } catch (error) {
        errors.push(`capability "${name}": ${describeError(error)}`);
      }
    }
    try {
      await kernel?.close();
    } catch (error) {
      errors.push(describeError(error));
    }
    if (errors.length) throw new XdogError(ErrorCodes.PLUGIN_OPEN_FAILED, `closing capabilities failed: ${errors.join('; ')}`);
  }

  #assertOpen(what: string): void {
    if (this.#state !== 'open') throw new XdogError(ErrorCodes.CLOSED, `${what}: the capability set is closed`, { hint: 'open the set again' });
    for (const member of this.#members) {
      if (member.#state !== 'open') {
        throw new XdogError(ErrorCodes.CLOSED, `${what}: ${member.#label()}, one of the combined sets, is closed`, { hint: 'combine open sets only; close the combination before its sets' });
      }
    }
  }

  /** The set assemblies behind this one: its members, or itself. */
  #sets(): readonly CapabilityAssembly[] {
    return this.#members.length ? this.#members : [this];
  }

  /** A source's name; in a combination it also names the set it comes from. */
  #source(source: string, set: CapabilityAssembly): string {
    return this.#members.length ? `${source} (${set.#label()})` : source;
  }

  #label(): string {
    const { scope = 'application', hostId } = this.#options;
    return scope === 'application' || !hostId ? `the ${scope} set` : `the ${scope} set "${hostId}"`;
  }

  #describe(): string {
    const names = this.capabilities;
    return names.length ? `capabilities: ${names.join(', ')}` : 'no capabilities';
  }
}

function toolsOf(tools: ToolRepo | readonly AgentTool[] | undefined, source: string): Sourced<AgentTool>[] {
  // Duck-typed, so a ToolRepo from another copy of xdog works too.
  const list: readonly AgentTool[] = Array.isArray(tools) ? tools : ((tools as ToolRepo | undefined)?.tools ?? []);
  return list.map((item) => ({ item, source }));
}
