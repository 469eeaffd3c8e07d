/**
 * `generate_image`: the model asks for images; the host's configured image
 * model makes them. The tool takes no model argument on purpose.
 */
import { z } from 'zod';
import { LIMITS, describeError, type AgentTool } from '../../core/index.js';
import { DEFAULT_OUTPUT_DIR, IMAGE_SIZES, generateImages, type GenerateImageEnvironment } from './generate.js';

const GenerateImageArgs = z
  .object({
    prompt: z.string().min(1).describe('What the image should show, in detail.'),
    aspect_ratio: z.string().optional().describe('Width:height, e.g. "1:1", "16:9" (default "9:16").'),
    image_size: z.enum(IMAGE_SIZES).optional().describe('Resolution class: 1K (default), 2K or 4K, as the model allows.'),
    references: z
      .array(z.string().min(1))
      .max(LIMITS.imageReferences)
      .optional()
      .describe(`Up to ${LIMITS.imageReferences} PNG, JPEG or WebP files in the workspace to edit or follow.`),
    output_dir: z.string().min(1).optional().describe(`A directory inside the workspace for the new files (default "${DEFAULT_OUTPUT_DIR}").`),
  })
  .strict();

export type GenerateImageEnvironmentSource = () => Omit<GenerateImageEnvironment, 'signal'>;

export function createGenerateImageTool(environment: GenerateImageEnvironmentSource): AgentTool<z.infer<typeof GenerateImageArgs>> {
  return {
    name: 'generate_image',
    description:
      'Generate images from a prompt (optionally from reference images in the workspace) with the image model the user configured. ' +
      'Saves new files in the workspace and returns their paths. Costs money: call it once per request; it is never retried automatically.',
    parameters: GenerateImageArgs,
    // Spends money: only a group that names it in enabled_tools gets it.
    optIn: true,
    async execute(args, context) {
      try {
        const env = environment();
        const result = await generateImages(
          { prompt: args.prompt, aspectRatio: args.aspect_ratio, imageSize: args.image_size, references: args.references },
          { ...env, ...(args.output_dir === undefined ? {} : { outputDir: args.output_dir }), signal: context?.signal },
        );
        const listed = result.paths.map((file) => `- ${file}`).join('\n');
        return { content: [{ type: 'text', text: `Generated ${result.paths.length} image(s) with ${result.model}:\n${listed}` }], details: result };
      } catch (error) {
        return { content: [{ type: 'text', text: `Error: ${describeError(error)}` }], isError: true };
      }
    },
  };
}
