/**
 * The `images` plugin: the `generate_image` tool. It uses the one model the
 * host configured as `claw.image_model` (never a model the agent names), and
 * whichever provider plugin contributes an `ImageGenerator` for that model's
 * provider type. There is no fallback to a chat model (docs/images.md).
 */
import { ToolContribution, WorkingDirectory, definePlugin, modelRegistryFor, type Kernel } from '../../core/index.js';
import { ImageGeneratorContribution } from './generator.js';
import { createGenerateImageTool } from './tool.js';

export { ImageGeneratorContribution, type ImageBytes, type ImageGenerator, type ImageMimeType, type ImageRequest, type ImageSize } from './generator.js';
export { DEFAULT_OUTPUT_DIR, IMAGE_SIZES, generateImages, type GenerateImageEnvironment, type GenerateImageInput, type GeneratedImages } from './generate.js';
export { sniffImage } from './sniff.js';
export { createGenerateImageTool } from './tool.js';

/** What generate_image needs from a kernel, read at call time so every call re-checks the model. */
export function imageEnvironmentOf(kernel: Kernel, workspace = kernel.get(WorkingDirectory)) {
  return { config: kernel.config, registry: modelRegistryFor(kernel), generators: kernel.getAll(ImageGeneratorContribution), workspace };
}

export default definePlugin({
  name: 'images',
  provides: { tools: ['generate_image'] },
  apply(kernel: Kernel) {
    // Offered only when the host chose an image model; binding stays inert until the model calls it.
    if (!kernel.config.claw?.image_model) return;
    kernel.container.bind(ToolContribution).toConstantValue(createGenerateImageTool(() => imageEnvironmentOf(kernel)));
  },
});
