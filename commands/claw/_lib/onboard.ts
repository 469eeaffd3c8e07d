/**
 * The answers of `xdog claw onboard`: from flags, and on a TTY from a wizard
 * (@inquirer/prompts) for whatever the flags left out. The model is always
 * picked explicitly (there is no default and nothing falls back); tools are
 * chosen by names or numbers, or all / none. Enabling generate_image asks for
 * `claw.image_model` among the models whose metadata says they generate
 * images, and only those.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { confirm, input } from '@inquirer/prompts';
import { ClawGroupNameSchema, type ClawGroupConfig } from '../../../core/config.js';
import { ErrorCodes, XdogError, describeError } from '../../../core/errors.js';
import type { ResolvedModel } from '../../../core/model/registry.js';
import { thinkingProblem } from '../../../core/model/thinking.js';
import { parseToolSelection } from './tool-list.js';

export interface OnboardFlags {
  group?: string;
  workspace?: string;
  model?: string;
  tools?: string;
  thinking?: string;
  'image-model'?: string;
  yes: boolean;
}

export interface OnboardContext {
  /** Whether questions can be asked (stdin and stdout are a TTY). */
  interactive: boolean;
  /** The registry's models ("provider/model"), in its order. */
  models: readonly string[];
  /** The registry's models that generate images ("provider/model"): the only choices for claw.image_model. */
  imageModels: readonly string[];
  /** `claw.image_model` as the config has it now, if set. */
  currentImageModel?: string;
  /** The registered tools, in order. */
  tools: readonly string[];
  resolve(model: string): ResolvedModel;
  /** Whether the config already has a group of that name. */
  hasGroup(name: string): boolean;
  /** Where the wizard writes its lists (stderr). */
  print(text: string): void;
}

export interface OnboardAnswers {
  name: string;
  group: ClawGroupConfig;
  /** The `claw.image_model` to write, when one was chosen. */
  imageModel?: string;
}

/** The tool that needs `claw.image_model`. */
export const IMAGE_TOOL = 'generate_image';

/** Collects and checks every answer; throws USAGE (naming missing flags) when it cannot ask. */
export async function collectAnswers(flags: OnboardFlags, context: OnboardContext): Promise<OnboardAnswers> {
  if (!context.interactive) {
    const missing = [flags.model === undefined && '--model', flags.workspace === undefined && '--workspace', flags.tools === undefined && '--tools'].filter(Boolean);
    if (missing.length > 0) {
      throw new XdogError(ErrorCodes.USAGE, `no TTY for the wizard and missing ${missing.join(', ')}`, { hint: 'pass them as flags (see --help), or run on a terminal' });
    }
  }
  try {
    const name = checkGroupName(flags.group ?? (context.interactive ? await ask('Group name', { default: 'main', validate: validator(checkGroupName) }) : 'main'));
    const workspace = checkWorkspace(flags.workspace ?? (await ask('Workspace directory', { default: process.cwd(), validate: validator(checkWorkspace) })));

    if (flags.model === undefined) context.print(numbered('Models', context.models));
    const model = pickModel(flags.model ?? (await ask('Model (number or provider/model)', { validate: validator((answer) => pickModel(answer, context)) })), context);
    const resolvedModel = context.resolve(model);

    const efforts = resolvedModel.info.reasoningEfforts;
    const thinking =
      flags.thinking ??
      (context.interactive && efforts?.length
        ? (await ask(`Thinking level (${efforts.join(', ')}; empty for the model's default)`, { required: false, validate: validator((answer) => checkThinking(answer, resolvedModel)) })) || undefined
        : undefined);
    if (thinking !== undefined) checkThinking(thinking, resolvedModel);

    if (flags.tools === undefined) context.print(numbered('Tools', context.tools));
    const chosen = parseToolSelection(flags.tools ?? (await ask('Tools (names or numbers separated by commas, all, none)', { validate: validator((answer) => parseToolSelection(answer, context.tools)) })), context.tools);
    const tools = withoutImageToolWhenNoImageModel(chosen, flags, context);

    const imageModel = await chooseImageModel(flags, tools, context);

    const group: ClawGroupConfig = { workspace, model, ...(thinking ? { thinking } : {}), enabled_tools: tools };
    if (!flags.yes) await confirmWrite(name, group, imageModel, context);
    return { name, group, ...(imageModel ? { imageModel } : {}) };
  } catch (error) {
    if ((error as Error)?.name === 'ExitPromptError') throw new XdogError(ErrorCodes.ABORTED, 'cancelled at the prompt; nothing was written');
    throw error;
  }
}

/**
 * Image generation is opt-in and needs an image model: when no model the
 * providers list generates images (and none is named), generate_image is left
 * off with a notice instead of failing the whole onboarding.
 */
function withoutImageToolWhenNoImageModel(tools: string[], flags: OnboardFlags, context: OnboardContext): string[] {
  if (!tools.includes(IMAGE_TOOL) || context.imageModels.length > 0 || flags['image-model'] !== undefined) return tools;
  context.print(`${IMAGE_TOOL} is left off: no model the providers list generates images (configure a provider with an image model, see docs/images.md, then run onboard again to enable it)\n`);
  return tools.filter((tool) => tool !== IMAGE_TOOL);
}

/**
 * `claw.image_model`: from --image-model, else asked when generate_image is
 * enabled (the current one offered as the default while it still generates
 * images). Without a terminal the current one is kept; none at all is a
 * usage error, since the tool would have nothing to call.
 */
async function chooseImageModel(flags: OnboardFlags, tools: readonly string[], context: OnboardContext): Promise<string | undefined> {
  if (flags['image-model'] !== undefined) return pickImageModel(flags['image-model'], context);
  if (!tools.includes(IMAGE_TOOL)) return undefined;
  const current = context.currentImageModel !== undefined && context.imageModels.includes(context.currentImageModel) ? context.currentImageModel : undefined;
  if (!context.interactive) {
    if (current) return current;
    throw new XdogError(ErrorCodes.USAGE, `${IMAGE_TOOL} is enabled but no image model is chosen: missing --image-model`, { hint: `image models: ${context.imageModels.join(', ')}` });
  }
  context.print(numbered('Image models (for generate_image)', context.imageModels));
  return pickImageModel(await ask('Image model (number or provider/model)', { ...(current ? { default: current } : {}), validate: validator((answer) => pickImageModel(answer, context)) }), context);
}

/** An image model by its number in the image list or its name; a model that does not generate images is refused. */
export function pickImageModel(answer: string, context: Pick<OnboardContext, 'imageModels' | 'resolve'>): string {
  const text = answer.trim();
  if (/^\d+$/.test(text)) {
    const model = context.imageModels[Number(text) - 1];
    if (model === undefined) throw new XdogError(ErrorCodes.MODEL_UNKNOWN, `there is no image model number ${text}`, { hint: `choose 1-${context.imageModels.length} or name one as provider/model` });
    return model;
  }
  const qualified = context.resolve(text).qualified;
  if (!context.imageModels.includes(qualified)) {
    throw new XdogError(ErrorCodes.UNSUPPORTED, `${qualified} does not generate images (its metadata declares no image output)`, {
      hint: context.imageModels.length ? `image models: ${context.imageModels.join(', ')}` : 'no listed model generates images',
    });
  }
  return qualified;
}

async function confirmWrite(name: string, group: ClawGroupConfig, imageModel: string | undefined, context: OnboardContext): Promise<void> {
  const replacing = context.hasGroup(name);
  if (!context.interactive) {
    if (replacing) throw new XdogError(ErrorCodes.CONFLICT, `the config already has a group "${name}"; it was left unchanged`, { hint: 'pass --yes to replace it, or choose another --group' });
    return;
  }
  context.print(`\ngroup ${name}: model ${group.model}${group.thinking ? ` (thinking ${group.thinking})` : ''}, workspace ${group.workspace}, tools: ${group.enabled_tools?.join(', ') || 'none'}\n`);
  if (imageModel) context.print(`image model (claw.image_model, for every group): ${imageModel}\n`);
  const ok = await confirm({ message: replacing ? `Replace the existing group "${name}"?` : 'Write it to the config file?', default: !replacing });
  if (!ok) throw new XdogError(ErrorCodes.ABORTED, 'not confirmed; nothing was written');
}

function ask(message: string, options: { default?: string; required?: boolean; validate: (answer: string) => true | string }): Promise<string> {
  return input({ message, required: options.default === undefined, ...options }).then((answer) => answer.trim());
}

/** Turns a checker that throws into an inquirer validator (true, or the message to show). */
function validator(check: (answer: string) => unknown): (answer: string) => true | string {
  return (answer) => {
    try {
      check(answer.trim());
      return true;
    } catch (error) {
      return describeError(error);
    }
  };
}

function numbered(title: string, items: readonly string[]): string {
  const width = String(items.length).length;
  return `${title}:\n${items.map((item, index) => `  ${String(index + 1).padStart(width)}. ${item}`).join('\n')}\n`;
}

/** A model by its number in the list or its name; an unknown one is refused (MODEL_UNKNOWN), never replaced. */
export function pickModel(answer: string, context: Pick<OnboardContext, 'models' | 'resolve'>): string {
  const text = answer.trim();
  if (/^\d+$/.test(text)) {
    const model = context.models[Number(text) - 1];
    if (model === undefined) throw new XdogError(ErrorCodes.MODEL_UNKNOWN, `there is no model number ${text}`, { hint: `choose 1-${context.models.length} or name one as provider/model` });
    return model;
  }
  return context.resolve(text).qualified;
}

function checkGroupName(name: string): string {
  const parsed = ClawGroupNameSchema.safeParse(name);
  if (!parsed.success) throw new XdogError(ErrorCodes.USAGE, `group name "${name}" ${parsed.error.issues[0]?.message}`);
  return name;
}

/** An existing directory, stored absolute (or as given when it starts with "~/"). */
function checkWorkspace(answer: string): string {
  const expanded = answer.startsWith('~/') ? path.join(os.homedir(), answer.slice(2)) : path.resolve(answer);
  if (!fs.statSync(expanded, { throwIfNoEntry: false })?.isDirectory()) {
    throw new XdogError(ErrorCodes.USAGE, `workspace ${expanded} is not a directory`, { hint: 'create it first, or name an existing one' });
  }
  return answer.startsWith('~/') ? answer : expanded;
}

function checkThinking(level: string, model: ResolvedModel): void {
  if (level === '') return;
  const problem = thinkingProblem(level, model);
  if (problem) throw new XdogError(ErrorCodes.USAGE, problem.message, { hint: problem.hint });
}
