/**
 * The read-only `skill` tool: `list` shows the index, `load` returns one
 * skill's instructions as a tool result. It activates nothing, runs nothing
 * and grants nothing; what a skill says is text for the model to read.
 */
import { ErrorCodes, XdogError } from '../errors.js';
import type { AgentTool } from '../agent/tool-types.js';
import type { SkillInfo, SkillRepo } from './skill-repo.js';

/** The tool's name. */
export const SKILL_TOOL_NAME = 'skill';

/** Options of `createSkillTool`. */
export interface SkillToolOptions {
  /** Only these slugs are listed and loadable (the filter applies to this tool only). */
  allowedSlugs?: Iterable<string>;
}

/** Arguments the model sends. */
export interface SkillToolArgs {
  action: 'list' | 'load';
  slug?: string;
}

/** What the host sees in `details`. */
export type SkillToolDetails = { action: 'list'; skills: SkillInfo[] } | { action: 'load'; skill: SkillInfo };

/** Creates the read-only `skill` tool over a repo. */
export function createSkillTool(repo: SkillRepo, options: SkillToolOptions = {}): AgentTool<SkillToolArgs, SkillToolDetails> {
  const allowed = options.allowedSlugs ? new Set(options.allowedSlugs) : undefined;
  const visible = () => repo.list().filter((skill) => !allowed || allowed.has(skill.slug));
  return {
    name: SKILL_TOOL_NAME,
    description:
      'Read skills: packaged instructions for particular tasks. Use action "list" to see the available skills, ' +
      'then action "load" with a slug to read one skill\'s instructions before doing that task.',
    parameters: {
      type: 'object',
      properties: {
        action: { type: 'string', enum: ['list', 'load'], description: '"list" the skills, or "load" one' },
        slug: { type: 'string', description: 'the skill to load (for "load")' },
      },
      required: ['action'],
      additionalProperties: false,
    },
    async execute(args) {
      if (args.action === 'list') {
        const skills = visible();
        const text = skills.length ? skills.map((skill) => `- ${skill.slug}: ${skill.description}`).join('\n') : 'No skills are available.';
        return { content: [{ type: 'text', text }], details: { action: 'list', skills } };
      }
      if (!args.slug) {
        throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'action "load" needs a slug', { hint: 'call the skill tool with action "list" to see the slugs' });
      }
      if (allowed && !allowed.has(args.slug)) {
        throw new XdogError(ErrorCodes.NOT_FOUND, `skill "${args.slug}" is not available here`, {
          hint: `available: ${visible().map((skill) => skill.slug).join(', ') || 'none'}`,
        });
      }
      const { body, ...skill } = repo.read(args.slug);
      return { content: [{ type: 'text', text: body }], details: { action: 'load', skill } };
    },
  };
}
