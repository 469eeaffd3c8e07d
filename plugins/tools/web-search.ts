/**
 * The `web_search` tool, present only when a backend is configured. A
 * backend is one interface; the built-in one speaks SearXNG's JSON API over
 * HTTP (a self-hostable metasearch engine, so search stays local-first).
 */
import { z } from 'zod';
import { LIMITS, XdogError, ErrorCodes, type AgentTool } from '../../core/index.js';
import { errorResult, textResult } from './results.js';

/** One search hit. */
export interface WebSearchResult {
  title: string;
  url: string;
  snippet: string;
}

/** A search engine the tool can ask. */
export interface WebSearchBackend {
  readonly name: string;
  search(query: string, options: { count: number; signal: AbortSignal }): Promise<WebSearchResult[]>;
}

/** SearXNG's `/search?format=json` (the instance must enable the json format). */
export class SearxngBackend implements WebSearchBackend {
  readonly name = 'searxng';
  /**
   * `apiKey` is sent as a Bearer token; `apiKeyEnv` names the variable it comes from, read at each search,
   * and a search fails (sending nothing) while that variable is unset.
   */
  constructor(private readonly options: { url: string; apiKey?: string; apiKeyEnv?: string; env?: NodeJS.ProcessEnv }) {}

  #apiKey(): string | undefined {
    const { apiKey, apiKeyEnv } = this.options;
    if (apiKey || !apiKeyEnv) return apiKey;
    const value = (this.options.env ?? process.env)[apiKeyEnv];
    if (!value) {
      throw new XdogError(ErrorCodes.CONFIG_INVALID, `web_search.api_key_env names ${apiKeyEnv}, which is not set`, { hint: `export ${apiKeyEnv}, or remove api_key_env from web_search` });
    }
    return value;
  }

  async search(query: string, options: { count: number; signal: AbortSignal }): Promise<WebSearchResult[]> {
    const apiKey = this.#apiKey();
    try {
      return await this.#search(query, options, apiKey);
    } catch (error) {
      throw withoutKey(error, apiKey);
    }
  }

  async #search(query: string, { count, signal }: { count: number; signal: AbortSignal }, apiKey: string | undefined): Promise<WebSearchResult[]> {
    const url = new URL('search', this.options.url.endsWith('/') ? this.options.url : `${this.options.url}/`);
    url.searchParams.set('q', query);
    url.searchParams.set('format', 'json');
    const headers: Record<string, string> = { accept: 'application/json' };
    if (apiKey) headers.authorization = `Bearer ${apiKey}`;
    const response = await fetch(url, { headers, signal });
    if (!response.ok) {
      throw new XdogError(ErrorCodes.TOOL_FAILED, `SearXNG at ${url.origin} answered HTTP ${response.status}`, {
        hint: response.status === 403 ? 'enable the json format under search.formats in its settings.yml' : 'check the web_search url in the config',
      });
    }
    const length = Number(response.headers.get('content-length') ?? 0);
    if (length > LIMITS.webSearchResponseBytes) {
      await response.body?.cancel();
      throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `the search response is ${length} bytes, over the ${LIMITS.webSearchResponseBytes}-byte limit`);
    }
    const body = JSON.parse(await boundedText(response, LIMITS.webSearchResponseBytes)) as { results?: Array<{ title?: unknown; url?: unknown; content?: unknown }> };
    return (body.results ?? [])
      .filter((hit) => typeof hit.url === 'string')
      .slice(0, count)
      .map((hit) => ({ title: String(hit.title ?? ''), url: hit.url as string, snippet: String(hit.content ?? '') }));
  }
}

/** The error with the API key cut out of its message (fetch quotes a malformed header value whole). */
function withoutKey(error: unknown, key: string | undefined): unknown {
  if (!key || !(error instanceof Error)) return error;
  const parts = [key, ...key.split(/[\r\n]+/)].filter((part) => part.length >= 4);
  const message = parts.reduce((text, part) => text.split(part).join('[redacted]'), error.message);
  return message === error.message ? error : new XdogError(ErrorCodes.TOOL_FAILED, message);
}

/** The body as text, read until `limit` bytes; past that the download is cancelled, not buffered whole. */
async function boundedText(response: Response, limit: number): Promise<string> {
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += chunk.byteLength;
    if (size > limit) {
      // Leaving the loop early cancels the stream, which closes the connection.
      throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `the search response is over the ${limit}-byte limit`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const SearchArgs = z.object({
  query: z.string().min(1).describe('What to search the web for.'),
  count: z.number().int().positive().max(LIMITS.webSearchResults).optional().describe(`Results to return (default 5, at most ${LIMITS.webSearchResults}).`),
});

export function createWebSearchTool(backend: WebSearchBackend): AgentTool<z.infer<typeof SearchArgs>> {
  return {
    name: 'web_search',
    description: 'Search the web and return titles, URLs and snippets. Use it for current events or facts you are unsure of; cite the URLs you rely on.',
    parameters: SearchArgs,
    async execute(args, context) {
      let results: WebSearchResult[];
      try {
        results = await backend.search(args.query, { count: args.count ?? 5, signal: context.signal });
      } catch (error) {
        return errorResult(`web search via ${backend.name} failed: ${(error as Error).message}`);
      }
      if (results.length === 0) return textResult(`no results for "${args.query}"`, { results });
      const text = results.map((hit, index) => `${index + 1}. ${hit.title}\n   ${hit.url}\n   ${hit.snippet}`).join('\n');
      return textResult(text, { results });
    },
  };
}
