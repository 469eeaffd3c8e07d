import { describe, expect, it } from 'vitest';
import { ToolContribution, createKernel } from '../../../core/index.js';
import { selectTools } from '../../../plugins/claw-gateway/index.js';
import imagesPlugin from '../../../plugins/images/index.js';
import toolsPlugin from '../../../plugins/tools/index.js';
import { tempDir } from '../../support/temp.js';

describe('a claw group\'s tools', () => {
  it('leave generate_image out unless enabled_tools names it (image generation is opt-in)', async () => {
    const kernel = await createKernel({ plugins: [toolsPlugin, imagesPlugin], config: { claw: { image_model: 'openai/gpt-image-1' } }, cwd: tempDir() });
    const installed = kernel.getAll(ToolContribution);
    expect(installed.map((tool) => tool.name)).toContain('generate_image');
    const byDefault = selectTools(installed, undefined, 'main').map((tool) => tool.name);
    expect(byDefault).toContain('bash');
    expect(byDefault).not.toContain('generate_image');
    expect(selectTools(installed, ['read', 'generate_image'], 'main').map((tool) => tool.name)).toEqual(['read', 'generate_image']);
    expect(() => selectTools(installed, ['nope'], 'main')).toThrow(/claw\.groups\.main\.enabled_tools names "nope"/);
    await kernel.close();
  });
});
