/**
 * The contract between `generate_image` and the providers that make images.
 * A provider plugin contributes one `ImageGenerator` per provider type
 * (`openai`, `google`); configured providers of that type use it too.
 */
import { token } from '../../core/index.js';

export type ImageSize = '1K' | '2K' | '4K';
export type ImageMimeType = 'image/png' | 'image/jpeg' | 'image/webp';

export interface ImageBytes {
  mimeType: ImageMimeType;
  data: Buffer;
}

export interface ImageRequest {
  /** The provider name the model resolved to ("openai" or a configured one, e.g. "local"). */
  provider: string;
  /** The model id without "provider/". */
  model: string;
  prompt: string;
  /** "W:H", e.g. "9:16". */
  aspectRatio?: string;
  imageSize?: ImageSize;
  /** Images the result should follow (edit or style source), already sniffed and bounded. */
  references: ImageBytes[];
  /** At most this many images are wanted. */
  maxImages: number;
  signal: AbortSignal;
}

export interface ImageGenerator {
  /** The provider type it serves: a provider name, or `type:` of a configured provider. */
  readonly providerType: string;
  /** Makes the images; throws on failure (never retries: a generation costs money). */
  generate(request: ImageRequest): Promise<ImageBytes[]>;
}

/** Multi-binding: the image generators provider plugins contribute. */
export const ImageGeneratorContribution = token<ImageGenerator>('ImageGenerator');
