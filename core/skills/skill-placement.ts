/**
 * Where active skill bodies go in a model request. Activation is explicit
 * and host-owned: session skills sit in the system prompt (the cacheable
 * prefix) until changed; turn skills are pending until the next run starts,
 * ride along in that run's requests only, and are consumed when it ends,
 * whether it succeeded, failed or was cancelled. Bodies are read at
 * activation, so an unknown or unreadable skill fails there, not mid-run.
 * Nothing here writes to the transcript.
 */
import { createHash } from 'node:crypto';
import { ErrorCodes, XdogError } from '../errors.js';
import { LIMITS } from '../limits.js';
import type { Message, UserMessage } from '../agent/messages.js';
import type { SkillBindings } from '../agent/snapshot.js';
import type { SkillDocument, SkillRepo } from './skill-repo.js';

/** Where an active skill is placed. */
export type SkillScope = 'session' | 'turn';

/** One active skill as the host sees it. */
export interface ActiveSkill {
  slug: string;
  scope: SkillScope;
  /** Turn skills are `pending` until a run starts, then `current` until it ends. */
  state: 'active' | 'pending' | 'current';
}

/** A model request's system prompt and messages (a copy the placement may rewrite). */
export interface SkillRequest {
  systemPrompt?: string;
  messages: Message[];
}

export class SkillPlacement {
  #repo?: SkillRepo;
  #session: SkillDocument[] = [];
  #pending: SkillDocument[] = [];
  #current: SkillDocument[] = [];

  /** `prepared` bodies (from `SkillPlacement.read`) become the initial session skills. */
  constructor(repo?: SkillRepo, prepared: readonly SkillDocument[] = []) {
    this.#repo = repo;
    this.#session = [...prepared];
  }

  /** Reads the bodies of `slugs` from `repo` (for hosts that prepare them off the agent's loop). */
  static read(repo: SkillRepo, slugs: readonly string[]): SkillDocument[] {
    assertDistinct(slugs);
    return slugs.map((slug) => repo.read(slug));
  }

  /** The skill index activation draws from. */
  get repo(): SkillRepo | undefined {
    return this.#repo;
  }

  setRepo(repo: SkillRepo | undefined): void {
    this.#repo = repo;
  }

  /** Session skills, then pending and current turn skills. */
  get active(): readonly ActiveSkill[] {
    return Object.freeze([
      ...this.#session.map((skill) => ({ slug: skill.slug, scope: 'session' as const, state: 'active' as const })),
      ...this.#current.map((skill) => ({ slug: skill.slug, scope: 'turn' as const, state: 'current' as const })),
      ...this.#pending.map((skill) => ({ slug: skill.slug, scope: 'turn' as const, state: 'pending' as const })),
    ]);
  }

  /**
   * Replaces the session skills, or the pending turn skills. All-or-nothing:
   * an unknown slug, an unreadable body or too many skills change nothing.
   */
  set(slugs: readonly string[], scope: SkillScope = 'session'): void {
    if (!this.#repo && slugs.length) {
      throw new XdogError(ErrorCodes.NOT_FOUND, `cannot activate skill "${slugs[0]}": this agent has no skill repo`, {
        hint: 'pass a SkillRepo (options.skills) when creating the agent',
      });
    }
    const others = scope === 'session' ? this.#pending.length + this.#current.length : this.#session.length + this.#current.length;
    if (slugs.length + others > LIMITS.activeSkills) {
      throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `${slugs.length + others} active skills is over the limit of ${LIMITS.activeSkills}`, {
        hint: 'activate fewer skills',
      });
    }
    const documents = this.#repo ? SkillPlacement.read(this.#repo, slugs) : [];
    if (scope === 'session') this.#session = documents;
    else this.#pending = documents;
  }

  /**
   * The lifecycle a snapshot saves: session and pending turn skills by slug
   * and body digest. Undefined without a skill index (nothing to bind to).
   * A running turn's skills are consumed when it ends, so they are not saved.
   */
  bindings(): SkillBindings | undefined {
    if (!this.#repo) return undefined;
    return { session: this.#session.map(bindingOf), pending: this.#pending.map(bindingOf) };
  }

  /**
   * Checks saved bindings against the current index and returns the commit
   * that adopts them. Saved slugs grant nothing: each must be in this index
   * with the same body digest, or this fails and changes nothing.
   */
  prepareRestore(saved: SkillBindings): () => void {
    if (saved.session.length + saved.pending.length > LIMITS.activeSkills) {
      throw restoreError(`the snapshot activates ${saved.session.length + saved.pending.length} skills, over the limit of ${LIMITS.activeSkills}`, 'restore from an intact snapshot');
    }
    const resolve = (binding: SkillBindings['session'][number], scope: string): SkillDocument => {
      if (!this.#repo?.has(binding.slug)) {
        throw restoreError(`the snapshot's ${scope} skill "${binding.slug}" is not in this agent's skill index`, 'supply a skill repo that provides it before restoring (saved names grant nothing)');
      }
      const document = this.#repo.read(binding.slug);
      if (bindingOf(document).sha256 !== binding.sha256) {
        throw restoreError(`the snapshot's ${scope} skill "${binding.slug}" has changed since it was saved`, 'restore with the skill version it was saved with, or activate the current one yourself after restoring without it');
      }
      return document;
    };
    for (const list of [saved.session, saved.pending]) {
      const slugs = list.map((binding) => binding.slug);
      const twice = slugs.find((slug, index) => slugs.indexOf(slug) !== index);
      if (twice) throw restoreError(`the snapshot names skill "${twice}" twice in one scope`, 'restore from an intact snapshot');
    }
    const session = saved.session.map((binding) => resolve(binding, 'session'));
    const pending = saved.pending.map((binding) => resolve(binding, 'pending turn'));
    return () => {
      this.#session = session;
      this.#pending = pending;
      this.#current = [];
    };
  }

  /** A run starts: pending turn skills become this run's. */
  beginTurn(): void {
    this.#current = this.#pending;
    this.#pending = [];
  }

  /** The run ended (any way): its turn skills are consumed. */
  endTurn(): void {
    this.#current = [];
  }

  /**
   * Places the skills into a request copy: session bodies after the system
   * prompt, this run's turn bodies before the text of the latest user message.
   */
  apply(request: SkillRequest): SkillRequest {
    const systemPrompt = this.#session.length
      ? [request.systemPrompt, renderSkills('Active skills', this.#session)].filter(Boolean).join('\n\n')
      : request.systemPrompt;
    if (!this.#current.length) return { systemPrompt, messages: request.messages };
    const index = request.messages.findLastIndex((message) => message.role === 'user');
    if (index < 0) return { systemPrompt, messages: request.messages };
    const user = request.messages[index] as UserMessage;
    const content = typeof user.content === 'string' ? [{ type: 'text' as const, text: user.content }] : user.content;
    const withSkills: UserMessage = { ...user, content: [{ type: 'text', text: renderSkills('Skills for this turn', this.#current) }, ...content] };
    const messages = [...request.messages];
    messages[index] = withSkills;
    return { systemPrompt, messages };
  }
}

function renderSkills(heading: string, skills: readonly SkillDocument[]): string {
  const blocks = skills.map((skill) => `<skill name="${skill.slug}">\n${skill.body}\n</skill>`);
  return `# ${heading}\n\n${blocks.join('\n\n')}`;
}

function bindingOf(skill: SkillDocument): SkillBindings['session'][number] {
  return { slug: skill.slug, sha256: createHash('sha256').update(skill.body).digest('hex') };
}

function restoreError(message: string, hint: string): XdogError {
  return new XdogError(ErrorCodes.SNAPSHOT_INVALID, message, { hint: `${hint}; the agent was left unchanged` });
}

function assertDistinct(slugs: readonly string[]): void {
  const seen = new Set<string>();
  for (const slug of slugs) {
    if (seen.has(slug)) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `skill "${slug}" is named twice`, { hint: 'name each skill once' });
    seen.add(slug);
  }
}
