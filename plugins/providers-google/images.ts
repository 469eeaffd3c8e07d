/**
 * Gemini image models (generateContent with image output) on the official
 * `@google/genai` SDK. One request, no retry: a generation is paid for even
 * when its answer is lost.
 */
import { ErrorCodes, LIMITS, XdogError, type CredentialStore, type XdogConfig } from '../../core/index.js';
import type { ImageBytes, ImageGenerator } from '../images/index.js';
import { boundedFetch, classifyFailure, providerConnector } from '../providers-shared/index.js';

export function createGeminiImageGenerator(options: { config: XdogConfig; store: CredentialStore; defaults: { apiKeyEnv: string[]; baseURL: string } }): ImageGenerator {
  return {
    providerType: 'google',
    async generate(request) {
      const connector = providerConnector({ config: options.config, name: request.provider, defaults: options.defaults, store: options.store, keyRequired: true });
      let apiKey: string | undefined;
      let endpoint = options.defaults.baseURL;
      try {
        const connection = await connector.connect();
        apiKey = connection.apiKey;
        endpoint = connection.baseURL;
        const { GoogleGenAI } = await import('@google/genai');
        const client = new GoogleGenAI({
          apiKey: connection.apiKey,
          // The SDK reads the whole answer (base64 images inside JSON): the bounded fetch fails it past the limit while it streams in.
          httpOptions: { baseUrl: connection.baseURL, headers: connection.headers, retryOptions: { attempts: 1 }, fetch: boundedFetch(LIMITS.imageResponseBytes, `the ${request.provider} image response`) },
        });
        const parts = [{ text: request.prompt }, ...request.references.map((image) => ({ inlineData: { mimeType: image.mimeType, data: image.data.toString('base64') } }))];
        const imageConfig = { ...(request.aspectRatio ? { aspectRatio: request.aspectRatio } : {}), ...(request.imageSize ? { imageSize: request.imageSize } : {}) };
        const response = await client.models.generateContent({
          model: request.model,
          contents: [{ role: 'user', parts }],
          config: { abortSignal: request.signal, responseModalities: ['IMAGE'], ...(Object.keys(imageConfig).length ? { imageConfig } : {}) },
        });
        const images: ImageBytes[] = [];
        for (const part of response.candidates?.[0]?.content?.parts ?? []) {
          // The type is sniffed from the bytes by generate_image.
          if (part.inlineData?.data) images.push({ mimeType: 'image/png', data: Buffer.from(part.inlineData.data, 'base64') });
        }
        if (images.length === 0) {
          const reason = response.candidates?.[0]?.finishReason ?? response.promptFeedback?.blockReason ?? 'no reason given';
          throw new XdogError(ErrorCodes.MODEL_FAILED, `${request.provider}/${request.model} returned no image (${reason})`, { hint: 'the prompt may have been refused; rephrase it' });
        }
        return images;
      } catch (error) {
        if (error instanceof XdogError) throw error;
        const failure = classifyFailure(error, { provider: request.provider, endpoint, authHint: connector.authHint, secrets: apiKey ? [apiKey] : [] }, request.signal);
        throw new XdogError(failure.kind === 'auth' ? ErrorCodes.AUTH_FAILED : ErrorCodes.MODEL_FAILED, failure.message);
      }
    },
  };
}
