import fs from 'node:fs';
import path from 'node:path';
import { Args, Flags } from '@oclif/core';
import { ErrorCodes, XdogError, bootKernel } from '../../core/index.js';
import { DEFAULT_OUTPUT_DIR, IMAGE_SIZES, generateImages, imageEnvironmentOf, type GeneratedImages } from '../../plugins/images/index.js';
import { XdogCommand } from '../base-command.js';

export default class ClawGenerateImage extends XdogCommand {
  static override summary = 'Generate images with the configured claw.image_model and print their paths as JSON';
  static override description =
    'Uses only claw.image_model (a model whose metadata says it generates images). References and the output directory must be inside the workspace; ' +
    'relative paths are taken from the current directory. Files are new (never overwritten) and private (0600). One request, no retry.';
  static override args = { prompt: Args.string({ description: 'what the image should show', required: true }) };
  static override flags = {
    workspace: Flags.string({ description: 'the workspace directory (default: the current directory)' }),
    'output-dir': Flags.string({ description: `where images are saved, inside the workspace (default: <workspace>/${DEFAULT_OUTPUT_DIR})` }),
    'aspect-ratio': Flags.string({ description: 'width:height, e.g. 1:1, 16:9, 9:16' }),
    'image-size': Flags.string({ description: 'resolution class', options: [...IMAGE_SIZES] }),
    reference: Flags.string({ description: 'a PNG, JPEG or WebP image in the workspace to edit or follow (repeat up to 4 times)', multiple: true }),
  };
  static override examples = [
    '<%= config.bin %> claw generate-image "a lighthouse at dusk, watercolour" --aspect-ratio 16:9',
    '<%= config.bin %> claw generate-image "the same cat, wearing a hat" --reference photos/cat.jpg --output-dir out',
  ];

  async run(): Promise<GeneratedImages> {
    const { args, flags } = await this.parse(ClawGenerateImage);
    const workspace = path.resolve(flags.workspace ?? process.cwd());
    if (!fs.statSync(workspace, { throwIfNoEntry: false })?.isDirectory()) {
      throw new XdogError(ErrorCodes.USAGE, `--workspace ${workspace} is not a directory`, { hint: 'pass an existing directory' });
    }
    const kernel = await bootKernel({ configFile: flags.config, filter: (plugin) => plugin.provides.providers.length > 0 || plugin.name === 'images' });
    const abort = new AbortController();
    const onInterrupt = () => abort.abort();
    process.once('SIGINT', onInterrupt);
    try {
      const result = await generateImages(
        {
          prompt: args.prompt,
          aspectRatio: flags['aspect-ratio'],
          imageSize: flags['image-size'] as (typeof IMAGE_SIZES)[number] | undefined,
          references: (flags.reference ?? []).map((reference) => path.resolve(reference)),
        },
        { ...imageEnvironmentOf(kernel, workspace), outputDir: flags['output-dir'] === undefined ? undefined : path.resolve(flags['output-dir']), signal: abort.signal },
      );
      this.log(JSON.stringify(result, null, 2));
      return result;
    } finally {
      process.off('SIGINT', onInterrupt);
      await kernel.close();
    }
  }
}
