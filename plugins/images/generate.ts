/**
 * One image generation, the same for the tool and the CLI: the configured
 * `claw.image_model` only, its metadata re-checked on every call, references
 * and outputs confined to the workspace and bounded, one attempt under a
 * deadline, nothing saved unless every image is acceptable.
 */
import fs from 'node:fs/promises';
import { ErrorCodes, LIMITS, XdogError, assertWithinLimit, readRegularFile, type ModelRegistry, type XdogConfig } from '../../core/index.js';
import type { ImageBytes, ImageGenerator, ImageSize } from './generator.js';
import { EXTENSIONS, sniffImage } from './sniff.js';
import { confinedPath, createOutputDirectory, plannedOutputDirectory, saveNewImage } from './workspace.js';

export const IMAGE_SIZES = ['1K', '2K', '4K'] as const;
export const DEFAULT_OUTPUT_DIR = 'generated-images';
/** What a request that names none gets, as the seed says: portrait, about one megapixel. */
export const DEFAULT_ASPECT_RATIO = '9:16';
export const DEFAULT_IMAGE_SIZE = '1K';
const ASPECT_RATIO = /^[1-9]\d{0,2}:[1-9]\d{0,2}$/;

export interface GenerateImageInput {
  prompt: string;
  aspectRatio?: string;
  imageSize?: ImageSize;
  /** Paths relative to the workspace. */
  references?: string[];
}

export interface GenerateImageEnvironment {
  config: XdogConfig;
  registry: ModelRegistry;
  generators: readonly ImageGenerator[];
  workspace: string;
  /** Relative to the workspace (default "generated-images"). */
  outputDir?: string;
  signal?: AbortSignal;
  now?: () => Date;
}

export interface GeneratedImages {
  /** "provider/model" that made them. */
  model: string;
  /** Absolute paths of the new files. */
  paths: string[];
}

export async function generateImages(input: GenerateImageInput, env: GenerateImageEnvironment): Promise<GeneratedImages> {
  validateInput(input);
  const { qualified, provider, id, generator } = imageModel(env);
  const references = await readReferences(env.workspace, input.references ?? []);
  const planned = await plannedOutputDirectory(env.workspace, env.outputDir ?? DEFAULT_OUTPUT_DIR);

  const deadline = AbortSignal.timeout(LIMITS.imageGenerationTimeoutMs);
  const signal = env.signal ? AbortSignal.any([env.signal, deadline]) : deadline;
  let images: ImageBytes[];
  try {
    images = await generator.generate({ provider, model: id, prompt: input.prompt, aspectRatio: input.aspectRatio ?? DEFAULT_ASPECT_RATIO, imageSize: input.imageSize ?? DEFAULT_IMAGE_SIZE, references, maxImages: LIMITS.imagesPerGeneration, signal });
  } catch (error) {
    if (deadline.aborted) throw new XdogError(ErrorCodes.MODEL_FAILED, `${qualified} made no image within ${LIMITS.imageGenerationTimeoutMs / 1000} s`, { hint: 'try again later or with a smaller image size; nothing was retried' });
    if (env.signal?.aborted) throw new XdogError(ErrorCodes.ABORTED, 'image generation was cancelled');
    if (error instanceof XdogError) throw error;
    throw new XdogError(ErrorCodes.MODEL_FAILED, `${qualified} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  checkOutput(qualified, images);
  const directory = await createOutputDirectory(env.workspace, planned);
  const now = env.now?.() ?? new Date();
  const paths: string[] = [];
  try {
    for (const image of images) paths.push(await saveNewImage(directory, EXTENSIONS[image.mimeType], image.data, now));
  } catch (error) {
    // All or nothing: a half-saved answer would be reported as a failure yet leave files behind.
    await Promise.all(paths.map((file) => fs.rm(file, { force: true })));
    throw error;
  }
  return { model: qualified, paths };
}

function validateInput(input: GenerateImageInput): void {
  if (input.prompt.trim() === '') throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'the prompt is empty');
  assertWithinLimit('the prompt', Buffer.byteLength(input.prompt), LIMITS.messageTextBytes);
  if (input.aspectRatio !== undefined && !ASPECT_RATIO.test(input.aspectRatio)) {
    throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `aspect ratio "${input.aspectRatio}" is not W:H`, { hint: 'e.g. 1:1, 16:9 or 9:16' });
  }
  if (input.imageSize !== undefined && !(IMAGE_SIZES as readonly string[]).includes(input.imageSize)) {
    throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `image size "${String(input.imageSize)}" is not one of ${IMAGE_SIZES.join(', ')}`);
  }
  assertWithinLimit('the number of reference images', input.references?.length ?? 0, LIMITS.imageReferences, 'images');
}

/** The configured image model, checked now (the config or a provider's list may have changed since the last call). */
function imageModel(env: GenerateImageEnvironment) {
  const configured = env.config.claw?.image_model;
  if (!configured) {
    throw new XdogError(ErrorCodes.CONFIG_INVALID, 'no image model is configured', { hint: 'set claw.image_model in the config, e.g. openai/gpt-image-1 (docs/images.md)' });
  }
  const resolved = env.registry.resolve(configured);
  if (!resolved.info.output?.includes('image')) {
    throw new XdogError(ErrorCodes.UNSUPPORTED, `${resolved.qualified} does not generate images (its metadata declares no image output)`, {
      hint: `pick an image model for claw.image_model, or declare it: models: [{ id: ${resolved.qualified}, output: [image] }]`,
    });
  }
  const providerName = resolved.provider.name;
  const providerType = env.config.providers?.[providerName]?.type ?? providerName;
  const generator = env.generators.find((candidate) => candidate.providerType === providerType);
  if (!generator) {
    throw new XdogError(ErrorCodes.UNSUPPORTED, `provider ${providerName} (type ${providerType}) cannot generate images`, {
      hint: `image providers: ${env.generators.map((candidate) => candidate.providerType).join(', ') || 'none loaded'}`,
    });
  }
  return { qualified: resolved.qualified, provider: providerName, id: resolved.id, generator };
}

async function readReferences(workspace: string, given: string[]): Promise<ImageBytes[]> {
  const references: ImageBytes[] = [];
  for (const reference of given) {
    const file = await confinedPath(workspace, reference, 'reference image');
    const data = await readRegularFile(file, { maxBytes: LIMITS.imageReferenceBytes, what: 'reference image', shown: reference });
    const mimeType = sniffImage(data);
    if (!mimeType) throw new XdogError(ErrorCodes.IMAGE_REJECTED, `reference image ${reference} is not a PNG, JPEG or WebP image`);
    references.push({ mimeType, data });
  }
  return references;
}

/** Every image the provider returned must be one we can name and store; none is dropped silently. */
function checkOutput(qualified: string, images: ImageBytes[]): void {
  if (images.length === 0) throw new XdogError(ErrorCodes.MODEL_FAILED, `${qualified} returned no image`, { hint: 'the prompt may have been refused; rephrase it' });
  if (images.length > LIMITS.imagesPerGeneration) {
    throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `${qualified} returned ${images.length} images, over the limit of ${LIMITS.imagesPerGeneration}`);
  }
  const total = images.reduce((sum, image) => sum + image.data.length, 0);
  assertWithinLimit(`images returned by ${qualified}`, total, LIMITS.imageGenerationBytes);
  for (const image of images) {
    const sniffed = sniffImage(image.data);
    if (!sniffed) throw new XdogError(ErrorCodes.MODEL_FAILED, `${qualified} returned data that is not a PNG, JPEG or WebP image`);
    image.mimeType = sniffed;
  }
}

