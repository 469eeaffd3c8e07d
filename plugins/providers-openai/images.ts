/**
 * OpenAI Images (images.generate, or images.edit when references are given)
 * on the official SDK, for `openai` and every configured provider of type
 * openai. One request, no retry: a generation is paid for even when its
 * answer is lost.
 */
import { ErrorCodes, LIMITS, XdogError, type CredentialStore, type XdogConfig } from '../../core/index.js';
import type { ImageBytes, ImageGenerator } from '../images/index.js';
import { boundedFetch, classifyFailure, providerConnector } from '../providers-shared/index.js';
import { openAISize } from './image-sizes.js';

export function createOpenAIImageGenerator(options: { config: XdogConfig; store: CredentialStore; defaults: { apiKeyEnv: string[]; baseURL: string } }): ImageGenerator {
  return {
    providerType: 'openai',
    async generate(request) {
      const { config, store, defaults } = options;
      const builtin = request.provider === 'openai';
      const connector = providerConnector({ config, name: request.provider, defaults, store, keyRequired: builtin || Boolean(config.providers?.[request.provider]?.api_key_env) });
      const size = openAISize(request.model, request.aspectRatio, request.imageSize);
      let apiKey: string | undefined;
      let endpoint = defaults.baseURL;
      try {
        const connection = await connector.connect();
        apiKey = connection.apiKey;
        endpoint = connection.baseURL;
        const { default: OpenAI, toFile } = await import('openai');
        const client = new OpenAI({
          apiKey: connection.apiKey ?? 'unused',
          baseURL: connection.baseURL,
          organization: null,
          project: null,
          maxRetries: 0,
          timeout: LIMITS.imageGenerationTimeoutMs,
          fetch: boundedFetch(LIMITS.imageResponseBytes, `the ${request.provider} image response`),
          defaultHeaders: { ...connection.headers, ...(connection.apiKey ? {} : { Authorization: null }) },
        });
        const common = { model: request.model, prompt: request.prompt, n: 1, ...(size ? { size } : {}) };
        const response =
          request.references.length === 0
            ? await client.images.generate(common, { signal: request.signal })
            : await client.images.edit(
                { ...common, image: await Promise.all(request.references.map((image, index) => toFile(image.data, `reference-${index + 1}.${image.mimeType.slice(6)}`, { type: image.mimeType }))) },
                { signal: request.signal },
              );
        return decodeImages(response.data ?? [], request.provider);
      } catch (error) {
        if (error instanceof XdogError) throw error;
        const failure = classifyFailure(error, { provider: request.provider, endpoint, authHint: connector.authHint, secrets: apiKey ? [apiKey] : [] }, request.signal);
        throw new XdogError(failure.kind === 'auth' ? ErrorCodes.AUTH_FAILED : ErrorCodes.MODEL_FAILED, failure.message);
      }
    },
  };
}

/** Images come back as base64 (b64_json); a URL-only answer is refused rather than fetched from an unknown host. */
function decodeImages(data: Array<{ b64_json?: string; url?: string }>, provider: string): ImageBytes[] {
  return data.map((item) => {
    if (!item.b64_json) throw new XdogError(ErrorCodes.MODEL_FAILED, `${provider} answered without image data (b64_json)`);
    // The type is sniffed from the bytes by generate_image; PNG is only a placeholder until then.
    return { mimeType: 'image/png', data: Buffer.from(item.b64_json, 'base64') };
  });
}
