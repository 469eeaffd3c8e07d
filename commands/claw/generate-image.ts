import fs from 'node:fs';
import path from 'node:path';
import { Args, Flags } from '@oclif/core';
import { ErrorCodes, XdogError, bootKernel, defaultGroupOf, type XdogConfig } from '../../core/index.js';
import { DEFAULT_OUTPUT_DIR, IMAGE_SIZES, generateImages, imageEnvironmentOf, type GeneratedImages } from '../../plugins/images/index.js';
import { XdogCommand } from '../base-command.js';
import { groupFlag } from './_lib/gateway.js';

export default class ClawGenerateImage extends XdogCommand {
  static override summary = 'Generate images with the configured claw.image_model and print their paths as JSON';
  static override description =
    'Uses only claw.image_model (a model whose metadata says it generates images). References and the output directory must be inside the workspace; ' +
    'the workspace is the group\'s (--group, else claw.default_group, else the only group; the current directory when no group is configured) unless --workspace names one, and relative paths are taken from the workspace. Files are new (never overwritten) and private (0600). One request, no retry.';
  static override args = { prompt: Args.string({ description: 'what the image should show', required: true }) };
  static override flags = {
    workspace: Flags.string({ description: 'the workspace directory (default: the group\'s workspace, else the current directory)' }),
    group: groupFlag,
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
    const kernel = await bootKernel({ configFile: flags.config, filter: (plugin) => plugin.provides.providers.length > 0 || plugin.name === 'images' });
    let workspace: string;
    try {
      workspace = workspaceOf(kernel.config, flags);
    } catch (error) {
      await kernel.close();
      throw error;
    }
    const inWorkspace = (file: string) => path.resolve(workspace, file);
    const abort = new AbortController();
    const onInterrupt = () => abort.abort();
    process.once('SIGINT', onInterrupt);
    try {
      const result = await generateImages(
        {
          prompt: args.prompt,
          aspectRatio: flags['aspect-ratio'],
          imageSize: flags['image-size'] as (typeof IMAGE_SIZES)[number] | undefined,
          references: (flags.reference ?? []).map(inWorkspace),
        },
        { ...imageEnvironmentOf(kernel, workspace), outputDir: flags['output-dir'] === undefined ? undefined : inWorkspace(flags['output-dir']), signal: abort.signal },
      );
      this.log(JSON.stringify(result, null, 2));
      return result;
    } finally {
      process.off('SIGINT', onInterrupt);
      await kernel.close();
    }
  }
}

/** --workspace (from the current directory), else the group's workspace, else the current directory when no group is configured. */
function workspaceOf(config: XdogConfig, flags: { workspace?: string; group?: string }): string {
  if (flags.workspace !== undefined) {
    const given = path.resolve(flags.workspace);
    if (!fs.statSync(given, { throwIfNoEntry: false })?.isDirectory()) throw new XdogError(ErrorCodes.USAGE, `--workspace ${given} is not a directory`, { hint: 'pass an existing directory' });
    return given;
  }
  const groups = config.claw?.groups ?? {};
  const name = flags.group ?? defaultGroupOf(config);
  if (name === undefined) {
    if (Object.keys(groups).length === 0) return process.cwd();
    throw new XdogError(ErrorCodes.USAGE, 'several claw groups are configured and none is the default', { hint: `pass --group (one of: ${Object.keys(groups).join(', ')}) or --workspace` });
  }
  const group = groups[name];
  if (!group) throw new XdogError(ErrorCodes.NOT_FOUND, `no claw group "${name}" is configured`, { hint: `use one of: ${Object.keys(groups).join(', ') || 'none (pass --workspace)'}` });
  const workspace = path.resolve(group.workspace);
  if (!fs.statSync(workspace, { throwIfNoEntry: false })?.isDirectory()) throw new XdogError(ErrorCodes.CONFIG_INVALID, `claw.groups.${name}.workspace: ${workspace} is not a directory`, { hint: 'create it, or pass --workspace' });
  return workspace;
}
