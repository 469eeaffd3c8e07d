/**
 * Rendered-context image admission: before every model request, every image
 * in the request (user, tool results, hook-added) is checked against the
 * model's declared limits. A violation refuses the request with an explicit
 * error; nothing is pruned, converted or dropped, and history is untouched.
 */
import { ErrorCodes, XdogError } from '../errors.js';
import { LIMITS } from '../limits.js';
import type { ImageContent, Message } from './messages.js';
import type { ModelInfo } from '../model/types.js';

/** Accepted MIME types when a model declares none. */
export const DEFAULT_IMAGE_MIME_TYPES: readonly string[] = ['image/png', 'image/jpeg', 'image/webp'];

/** Decoded size of base64 data, without decoding it. */
export function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

/** An image of a message list and the index of the message that holds it. */
export interface LocatedImage {
  image: ImageContent;
  index: number;
}

/** Appends the images of `message` (at `index`) to `found`; returns `found`. */
export function collectImages(message: Message, index: number, found: LocatedImage[]): LocatedImage[] {
  if (message.role === 'assistant' || typeof message.content === 'string') return found;
  for (const part of message.content) if (part.type === 'image') found.push({ image: part, index });
  return found;
}

/** Every image in `messages`, in order. */
export function findImages(messages: readonly Message[]): LocatedImage[] {
  const found: LocatedImage[] = [];
  for (let index = 0; index < messages.length; index++) collectImages(messages[index]!, index, found);
  return found;
}

function refuse(model: string, problem: string): XdogError {
  return new XdogError(ErrorCodes.IMAGE_REJECTED, `the request to ${model} was refused: ${problem}`, {
    hint: 'remove or shrink images in the conversation (or use a model that accepts them); history was left unchanged',
  });
}

/**
 * Throws IMAGE_REJECTED when the images in `messages` break `info`'s declared
 * limits (or the default bound). `images`, when given, are those of
 * `messages` already located (an owner that tracks them as history grows
 * saves scanning the whole request every turn).
 */
export function admitImages(messages: readonly Message[], model: string, info: ModelInfo | undefined, images: readonly LocatedImage[] = findImages(messages)): void {
  if (images.length === 0) return;
  if (info?.input && !info.input.includes('image')) throw refuse(model, `it holds ${images.length} image(s) but the model takes no image input`);
  const limits = info?.images ?? {};
  if (limits.maxCount !== undefined && images.length > limits.maxCount) {
    throw refuse(model, `it holds ${images.length} images but the model accepts at most ${limits.maxCount}`);
  }
  const mimeTypes = limits.mimeTypes ?? DEFAULT_IMAGE_MIME_TYPES;
  let total = 0;
  for (const { image, index } of images) {
    if (!mimeTypes.includes(image.mimeType)) {
      throw refuse(model, `message ${index} holds a ${image.mimeType} image; accepted types are ${mimeTypes.join(', ')}`);
    }
    const bytes = base64Bytes(image.data);
    if (limits.maxBytes !== undefined && bytes > limits.maxBytes) {
      throw refuse(model, `message ${index} holds an image of ${bytes} bytes; the model accepts at most ${limits.maxBytes} per image`);
    }
    total += bytes;
  }
  if (limits.maxBytes === undefined && total > LIMITS.defaultImageBytes) {
    throw refuse(model, `its images total ${total} bytes, over the default bound of ${LIMITS.defaultImageBytes} for models that declare no limit`);
  }
}
