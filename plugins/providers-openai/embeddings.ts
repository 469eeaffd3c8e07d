/**
 * OpenAI's embeddings API (`POST {base}/embeddings`), which OpenAI-compatible
 * servers (vLLM, llama.cpp, Ollama, LiteLLM, ...) also speak: one request per
 * call, vectors ordered by their `index`.
 */
import { ErrorCodes, LIMITS, XdogError, type EmbedFunction } from '../../core/index.js';
import { requestJson, type ProviderConnector } from '../providers-shared/index.js';

export function createOpenAIEmbedder(options: { provider: string; model: string; connector: ProviderConnector }): EmbedFunction {
  const { provider, model, connector } = options;
  const embed = async (texts: readonly string[], { signal }: { signal: AbortSignal }): Promise<number[][]> => {
    const connection = await connector.connect();
    const body = (await requestJson(new URL(`${connection.baseURL}/embeddings`), {
      what: `the ${provider} embeddings API`,
      body: { model, input: texts, encoding_format: 'float' },
      headers: { ...connection.headers, ...(connection.apiKey ? { authorization: `Bearer ${connection.apiKey}` } : {}) },
      secret: connection.apiKey,
      signal,
      maxBytes: LIMITS.embedResponseBytes,
      timeoutMs: Math.min(connection.timeoutMs, LIMITS.embedTimeoutMs),
      hints: { 401: connector.authHint, 404: `check that ${provider} serves the embedding model ${model} (embed.model in the config)` },
      defaultHint: `check embed.model and providers.${provider} in the config`,
    })) as { data?: Array<{ index?: unknown; embedding?: unknown }> };
    if (!Array.isArray(body?.data)) throw new XdogError(ErrorCodes.TOOL_FAILED, `the ${provider} embeddings API answered without a data list`);
    // The API may answer out of order; `index` says which input each vector belongs to.
    return [...body.data].sort((a, b) => Number(a.index ?? 0) - Number(b.index ?? 0)).map((entry) => entry.embedding as number[]);
  };
  return Object.assign(embed, { model: `${provider}/${model}` });
}
