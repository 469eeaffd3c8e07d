/**
 * CapabilityAssembly: the opened capabilities of one set, shared by every
 * agent created from it. Tools and skills combine by additive union: host
 * repos add to what the capabilities contribute and can never remove it;
 * one name from two different sources fails, naming both. There are no
 * enable lists. Agents close before their assembly does.
 */
import { ErrorCodes, XdogError, describeError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import type { ModelStreamFn } from '../model/types.js';
import { Agent } from '../agent/agent.js';
import type { ToolRepo } from '../agent/tool-repo.js';
import type { AgentTool } from '../agent/tool-types.js';
import type { AgentConfig, AgentOptions } from '../agent/types.js';
import { SkillRepo } from '../skills/skill-repo.js';
import { SKILL_TOOL_NAME, createSkillTool } from '../skills/skill-tool.js';
import type { CapabilityBinding } from './types.js';

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
}

/** Options of `createAgent`: the agent's config, supplemental repos, and the ordinary Agent options except tools and skills (no second enable list). */
export interface AssemblyAgentOptions extends Omit<AgentOptions, 'tools' | 'skills'> {
  config: AgentConfig;
  /** Added to the set's and the capabilities' tools. */
  toolRepo?: ToolRepo;
  /** Added to the set's and the capabilities' skills. */
  skillRepo?: SkillRepo;
}

type Sourced<T> = { item: T; source: string };

export class CapabilityAssembly {
  readonly #opened: OpenedCapability[];
  readonly #options: AssemblyOptions;
  readonly #agents = new Set<Agent>();
  #state: 'open' | 'closing' | 'closed' = 'open';

  /** Use `CapabilitySet.open()`. */
  constructor(opened: OpenedCapability[], options: AssemblyOptions = {}) {
    this.#opened = opened;
    this.#options = options;
  }

  /** The names of the opened capabilities, in open order. */
  get capabilities(): readonly string[] {
    return this.#opened.map((entry) => entry.name);
  }

  get isClosed(): boolean {
    return this.#state === 'closed';
  }

  /** The skill index agents get: set skills, capability skills and `extra`, by union. */
  composeSkills(extra?: SkillRepo): SkillRepo {
    const sources: Sourced<SkillRepo>[] = [
      ...(this.#options.skillRepo ? [{ item: this.#options.skillRepo, source: "the set's skill repo" }] : []),
      ...this.#opened.flatMap(({ name, binding }) => (binding.skills ? [{ item: binding.skills, source: `capability "${name}"` }] : [])),
      ...(extra ? [{ item: extra, source: "the agent's skill repo" }] : []),
    ];
    return sources.reduce((merged, { item }) => merged.merge(item), SkillRepo.empty());
  }

  /**
   * The tools agents get: the set's host tools, `existing`, and the
   * capabilities' tools, by union; plus a read-only `skill` tool over the
   * composed skills when there are any and no source supplies one.
   */
  composeTools(existing?: ToolRepo | readonly AgentTool[], skills: SkillRepo = this.composeSkills()): AgentTool[] {
    this.#assertOpen('composeTools()');
    const sourced: Sourced<AgentTool>[] = [
      ...toolsOf(this.#options.toolRepo, "the set's tool repo"),
      ...toolsOf(existing, "the agent's tool repo"),
      ...this.#opened.flatMap(({ name, binding }) => (binding.tools ?? []).map((item) => ({ item, source: `capability "${name}"` }))),
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
    const { config, toolRepo, skillRepo, ...agentOptions } = options;
    const skills = this.composeSkills(skillRepo);
    const agent = new Agent(streamFn, config, { ...agentOptions, tools: this.composeTools(toolRepo, skills), skills });
    this.#agents.add(agent);
    agent.onClose(() => this.#agents.delete(agent));
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
  }
}

function toolsOf(tools: ToolRepo | readonly AgentTool[] | undefined, source: string): Sourced<AgentTool>[] {
  // Duck-typed, so a ToolRepo from another copy of xdog works too.
  const list: readonly AgentTool[] = Array.isArray(tools) ? tools : ((tools as ToolRepo | undefined)?.tools ?? []);
  return list.map((item) => ({ item, source }));
}
