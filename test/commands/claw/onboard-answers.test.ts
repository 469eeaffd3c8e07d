/** `xdog claw onboard`'s answers when no model generates images: generate_image is left off with a notice, never a failure. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { collectAnswers, type OnboardContext } from '../../../commands/claw/_lib/onboard.js';
import type { ResolvedModel } from '../../../core/model/registry.js';
import { tempDir } from '../../support/temp.js';

function context(imageModels: string[]): OnboardContext & { printed: string[] } {
  const printed: string[] = [];
  return {
    interactive: false,
    models: ['faux/demo'],
    imageModels,
    tools: ['read', 'bash', 'generate_image'],
    resolve: (model) => ({ id: model.split('/')[1]!, qualified: model, info: { id: model.split('/')[1]!, provider: 'faux' } }) as unknown as ResolvedModel,
    hasGroup: () => false,
    print: (text) => void printed.push(text),
    printed,
  };
}

describe('onboarding without an image model', () => {
  const workspace = (): string => {
    const dir = path.join(tempDir('xdog-onboard-answers-'), 'ws');
    fs.mkdirSync(dir);
    return dir;
  };

  it('leaves generate_image off (tools "all" or named) and says why', async () => {
    for (const tools of ['all', 'read,generate_image']) {
      const ctx = context([]);
      const answers = await collectAnswers({ workspace: workspace(), model: 'faux/demo', tools, yes: true }, ctx);
      expect(answers.group.enabled_tools).not.toContain('generate_image');
      expect(answers.group.enabled_tools).toContain('read');
      expect(answers.imageModel).toBeUndefined();
      expect(ctx.printed.join('')).toContain('generate_image is left off: no model the providers list generates images');
    }
  });

  it('keeps generate_image when an image model exists', async () => {
    const ctx = context(['openai/gpt-image-1']);
    const answers = await collectAnswers({ workspace: workspace(), model: 'faux/demo', tools: 'all', 'image-model': '1', yes: true }, ctx);
    expect(answers.group.enabled_tools).toContain('generate_image');
    expect(answers.imageModel).toBe('openai/gpt-image-1');
    expect(ctx.printed.join('')).not.toContain('left off');
  });
});
