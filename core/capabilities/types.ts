/**
 * The capability contract. A capability is a trusted, installed ability (Flow,
 * Eyes, ...) that a plugin contributes as a `CapabilityProvider` bound to
 * `CapabilityContribution` and names in its package.json under
 * `provides.capabilities`. Discovery reads only that name; a provider's code
 * is imported and opened only when a host selects it.
 */
import type { XdogConfig } from '../config.js';
import type { Kernel } from '../kernel.js';
import type { ModelStreamFn } from '../model/types.js';
import type { AgentTool } from '../agent/tool-types.js';
import type { ToolRepo } from '../agent/tool-repo.js';
import type { SkillRepo } from '../skills/skill-repo.js';

/** Who a set of capabilities is opened for. */
export type CapabilityScope = 'application' | 'session' | 'group';

/** The model a capability may use to run its own work (Flow's agent steps). */
export interface CapabilityRuntime {
  streamFn: ModelStreamFn;
  model: string;
}

/**
 * The owner port: the actual owner a set is opened for. Application scope
 * gets a default port; session and group scopes need the real owner's.
 */
export interface CapabilityHost {
  scope: CapabilityScope;
  /** The owner's id (a session or group id; "application" for the default port). */
  id: string;
  /** The working directory capabilities resolve relative paths against. */
  cwd?: string;
  /** A model for capabilities that run model work; without it they refuse such work with a clear error. */
  runtime?: CapabilityRuntime;
}

/** What a provider's `open` receives. */
export interface CapabilityContext {
  scope: CapabilityScope;
  host: CapabilityHost;
  config: XdogConfig;
  /** The host's tools given to the set (capabilities may call them; they grant nothing). */
  toolRepo?: ToolRepo;
  /** The skills packaged by the provider's own plugin (empty when it was not installed from a package). */
  packagedSkills: SkillRepo;
  /** The kernel the provider was loaded into. */
  kernel: Kernel;
}

/** What an opened capability contributes. Every part is optional; none of it grants authority. */
export interface CapabilityBinding {
  /** Tools for agents created from the assembly. */
  tools?: readonly AgentTool[];
  /** Skills for their index (never activated unless named in `sessionSkills`). */
  skills?: SkillRepo;
  /**
   * Slugs of `skills` that agents of the assembly start with as session
   * skills (the host may change them). None by default; a capability's
   * packaged bodies stay inactive unless it names them here.
   */
  sessionSkills?: readonly string[];
  /** Releases what `open` started. Runs once, when the set closes. */
  close?(): Promise<void> | void;
}

/** A capability's code: opened once per set, its binding shared by every agent of that set. */
export interface CapabilityProvider {
  /** Equals the name in the plugin's `provides.capabilities`. */
  readonly name: string;
  readonly description?: string;
  /**
   * True for a capability that starts something outside the process (Eyes
   * ensures a daemon): it opens only when a host names it (config
   * `capabilities:`), never as one of "every installed capability".
   */
  readonly explicit?: boolean;
  /** Scopes it may be opened in (default: all three). */
  readonly scopes?: readonly CapabilityScope[];
  open(context: CapabilityContext): Promise<CapabilityBinding> | CapabilityBinding;
}

/** An installed capability as discovery sees it (no code imported). */
export interface CapabilityInfo {
  name: string;
  /** The plugin that provides it. */
  plugin: string;
  packageName: string;
  source: string;
}
