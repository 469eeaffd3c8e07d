/**
 * The `size` an OpenAI image model is asked for, from the request's aspect
 * ratio and size class (1K/2K/4K), per model as OpenAI's Images API
 * documents them:
 * - gpt-image-1, -1-mini, -1.5 (and chatgpt-image-latest) make three fixed
 *   sizes of about one megapixel: 1024x1024, 1536x1024 and 1024x1536;
 * - gpt-image-2 takes any WIDTHxHEIGHT whose edges are multiples of 16, the
 *   longer at most 3840, the ratio at most 3:1, and 655,360 to 8,294,400
 *   pixels in all, so 2K and 4K are real sizes there.
 * A model this table does not know is treated like gpt-image-1 (what an
 * OpenAI-compatible server of that API takes at least). A size class or a
 * ratio the model cannot make is refused, naming the model and what it takes;
 * it is never quietly made smaller.
 */
import { ErrorCodes, XdogError } from '../../core/index.js';
import type { ImageSize } from '../images/index.js';

const FIXED_SIZES = ['1024x1024', '1536x1024', '1024x1536'] as const;
/** Flexible sizes (gpt-image-2): the documented bounds. */
const FLEXIBLE = { step: 16, maxEdge: 3840, maxRatio: 3, minPixels: 655_360, maxPixels: 8_294_400 } as const;
/** The pixels each class aims at on a flexible model: about 1, 4 and 8.3 megapixels (4K is 3840x2160's count). */
const CLASS_PIXELS: Record<ImageSize, number> = { '1K': 1024 * 1024, '2K': 2048 * 2048, '4K': FLEXIBLE.maxPixels };

const FIXED_MODEL = /^(gpt-image-1(-mini|\.5)?|chatgpt-image-latest)(-\d{4}-\d{2}-\d{2})?$/;
const FLEXIBLE_MODEL = /^gpt-image-2(-\d{4}-\d{2}-\d{2})?$/;

/** The `size` to send, or undefined to let the model choose (no ratio asked). */
export function openAISize(model: string, aspectRatio: string | undefined, imageSize: ImageSize | undefined): string | undefined {
  const sizeClass = imageSize ?? '1K';
  if (FLEXIBLE_MODEL.test(model)) return aspectRatio === undefined && imageSize === undefined ? undefined : flexibleSize(model, aspectRatio ?? '1:1', sizeClass);
  if (sizeClass !== '1K') {
    const known = FIXED_MODEL.test(model) ? '' : ' (xdog does not know its sizes, so it takes it for a gpt-image-1 kind)';
    throw new XdogError(ErrorCodes.UNSUPPORTED, `${model} makes no ${sizeClass} images${known}: it takes 1K only (${FIXED_SIZES.join(', ')})`, {
      hint: 'use image_size 1K (or leave it out), or set claw.image_model to openai/gpt-image-2, which makes 2K and 4K images',
    });
  }
  if (aspectRatio === undefined) return undefined;
  const ratio = ratioOf(aspectRatio);
  if (ratio === 1) return '1024x1024';
  return ratio > 1 ? '1536x1024' : '1024x1536';
}

function ratioOf(aspectRatio: string): number {
  const [width, height] = aspectRatio.split(':').map(Number);
  return width! / height!;
}

/** WIDTHxHEIGHT of the ratio with about the class's pixels, inside the model's bounds (edges rounded down to 16). */
function flexibleSize(model: string, aspectRatio: string, sizeClass: ImageSize): string {
  const ratio = ratioOf(aspectRatio);
  if (Math.max(ratio, 1 / ratio) > FLEXIBLE.maxRatio) {
    throw new XdogError(ErrorCodes.UNSUPPORTED, `${model} makes no ${aspectRatio} image: it takes aspect ratios from 1:3 to 3:1`, {
      hint: 'pick a ratio between 1:3 and 3:1, e.g. 16:9 or 9:16',
    });
  }
  let width = Math.sqrt(CLASS_PIXELS[sizeClass] * ratio);
  let height = width / ratio;
  const scale = Math.min(1, FLEXIBLE.maxEdge / Math.max(width, height));
  width *= scale;
  height *= scale;
  const edge = (value: number): number => Math.floor(value / FLEXIBLE.step) * FLEXIBLE.step;
  const [w, h] = [edge(width), edge(height)];
  // Cannot happen for ratios up to 3:1 (1K at 3:1 is 1776x592); kept so a change of the table fails loudly.
  if (w * h < FLEXIBLE.minPixels) throw new XdogError(ErrorCodes.UNSUPPORTED, `${model} makes no ${w}x${h} image: it takes at least ${FLEXIBLE.minPixels} pixels`);
  return `${w}x${h}`;
}
