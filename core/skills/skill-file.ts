/**
 * One skill on disk: a folder holding `SKILL.md`, whose YAML front matter
 * names the skill and describes it, and whose body holds the instructions.
 * Reading the front matter is how discovery builds an index; the body is
 * read only when someone asks for it (`readSkillBody`).
 */
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { readRegularFileSync } from '../bounded-read.js';
import { ErrorCodes, XdogError } from '../errors.js';
import { LIMITS } from '../limits.js';

/** The file name every skill folder holds. */
export const SKILL_FILE = 'SKILL.md';

/** Slugs are lower-case words joined by dashes; they name the folder too. */
export const SKILL_SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{0,63}$/;

const FrontMatterSchema = z
  .object({
    name: z.string().regex(SKILL_SLUG_PATTERN, 'must be a slug: lower-case letters, digits and dashes'),
    description: z.string().min(1, 'must not be empty').max(1024, 'must be at most 1024 characters'),
    title: z.string().min(1).optional(),
  })
  .strict();

/** What a skill's front matter declares. */
export type SkillFrontMatter = z.infer<typeof FrontMatterSchema>;

/** A skill split into its front matter and its body. */
export interface ParsedSkill {
  frontMatter: SkillFrontMatter;
  body: string;
}

const FENCE = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** Reads a SKILL.md file, refusing one over the size limit. */
export function readSkillFile(file: string): string {
  try {
    return readRegularFileSync(file, { maxBytes: LIMITS.skillFileBytes, what: 'skill file', sizeHint: 'split the instructions into smaller skills' }).toString('utf8');
  } catch (error) {
    if (XdogError.is(error)) throw error;
    throw new XdogError(ErrorCodes.NOT_FOUND, `cannot read skill file ${file}: ${(error as Error).message}`, {
      hint: `a skill is a folder holding ${SKILL_FILE}`,
    });
  }
}

/** Splits and validates SKILL.md text; errors name the file and the key. */
export function parseSkill(text: string, file: string): ParsedSkill {
  const match = FENCE.exec(text);
  if (!match) {
    throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `${file} has no front matter`, {
      hint: 'start the file with "---", then "name: <slug>" and "description: <one line>", then "---"',
    });
  }
  let data: unknown;
  try {
    data = parseYaml(match[1]!);
  } catch (error) {
    throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `${file}: front matter is not valid YAML: ${(error as Error).message.split('\n')[0]}`, {
      hint: 'fix the YAML between the two "---" lines',
    });
  }
  const parsed = FrontMatterSchema.safeParse(data ?? {});
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const key = issue.code === 'unrecognized_keys' ? issue.keys.join(', ') : issue.path.join('.') || '(front matter)';
      return `${key}: ${issue.code === 'unrecognized_keys' ? 'unknown key' : issue.message}`;
    });
    throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `${file}: invalid front matter: ${problems.join('; ')}`, {
      hint: 'the front matter takes name (the slug), description and optionally title',
    });
  }
  const body = text.slice(match[0].length).trim();
  if (!body) {
    throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `${file} has an empty body`, { hint: 'write the instructions below the front matter' });
  }
  return { frontMatter: parsed.data, body };
}

/** Reads one skill folder's SKILL.md; its `name` must equal the folder name. */
export function readSkillFolder(folder: string): ParsedSkill & { file: string } {
  const file = path.join(folder, SKILL_FILE);
  const parsed = parseSkill(readSkillFile(file), file);
  const folderName = path.basename(folder);
  if (parsed.frontMatter.name !== folderName) {
    throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `${file} is named "${parsed.frontMatter.name}" but its folder is "${folderName}"`, {
      hint: 'make the front matter name and the folder name agree',
    });
  }
  return { ...parsed, file };
}
