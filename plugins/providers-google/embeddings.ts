/**
 * Gemini's embeddings API: `POST {base}/v1beta/models/{model}:batchEmbedContents`
 * with the key in x-goog-api-key; one request per call, vectors in input order.
 */
import { ErrorCodes, LIMITS, XdogError, type EmbedFunction } from '../../core/index.js';
import { requestJson, type ProviderConnector } from '../providers-shared/index.js';

export function createGeminiEmbedder(options: { provider: string; model: string; connector: ProviderConnector }): EmbedFunction {
  const { provider, model, connector } = options;
  const name = model.startsWith('models/') ? model : `models/${model}`;
  const embed = async (texts: readonly string[], { signal }: { signal: AbortSignal }): Promise<number[][]> => {
    const connection = await connector.connect();
    const body = (await requestJson(new URL(`${connection.baseURL}/v1beta/${name}:batchEmbedContents`), {
      what: `the ${provider} embeddings API`,
      body: { requests: texts.map((text) => ({ model: name, content: { parts: [{ text }] } })) },
      headers: { ...connection.headers, ...(connection.apiKey ? { 'x-goog-api-key': connection.apiKey } : {}) },
      secret: connection.apiKey,
      signal,
      maxBytes: LIMITS.embedResponseBytes,
      timeoutMs: Math.min(connection.timeoutMs, LIMITS.embedTimeoutMs),
      hints: { 400: `check embed.model (${model}) and the texts`, 403: connector.authHint, 404: `check that ${model} is a Gemini embedding model (for example gemini-embedding-001)` },
      defaultHint: `check embed.model and providers.${provider} in the config`,
    })) as { embeddings?: Array<{ values?: unknown }> };
    if (!Array.isArray(body?.embeddings)) throw new XdogError(ErrorCodes.TOOL_FAILED, `the ${provider} embeddings API answered without an embeddings list`);
    return body.embeddings.map((entry) => entry.values as number[]);
  };
  return Object.assign(embed, { model: `${provider}/${model}` });
}
