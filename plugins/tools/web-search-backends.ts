/**
 * The backends `web_search` can ask, one per wire format: SearXNG (self-hosted,
 * so search can stay local-first), Brave Search and Tavily. Keys come only from
 * the variable `api_key_env` names, read at each search; a search whose key is
 * missing fails before anything is sent.
 */
import { ErrorCodes, LIMITS, XdogError, type XdogConfig } from '../../core/index.js';
import { requestJson } from '../providers-shared/index.js';
import type { WebSearchBackend, WebSearchResult } from './web-search.js';

type SearchOptions = { count: number; signal: AbortSignal };

interface BackendOptions {
  /** The API's base URL (a local stand-in in tests). */
  url: string;
  /** The variable holding the key. */
  apiKeyEnv?: string;
  env?: NodeJS.ProcessEnv;
}

/** The key from `apiKeyEnv`; `required` backends refuse to search without one. */
function keyFrom(options: BackendOptions, backend: string, required: boolean): string | undefined {
  const { apiKeyEnv } = options;
  if (!apiKeyEnv) {
    if (!required) return undefined;
    throw new XdogError(ErrorCodes.CONFIG_INVALID, `web_search backend ${backend} needs an API key`, { hint: 'name the variable that holds it in web_search.api_key_env' });
  }
  const value = (options.env ?? process.env)[apiKeyEnv];
  if (!value) throw new XdogError(ErrorCodes.CONFIG_INVALID, `web_search.api_key_env names ${apiKeyEnv}, which is not set`, { hint: `export ${apiKeyEnv}, or remove api_key_env from web_search` });
  return value;
}

/** `path` under the base URL, keeping the base's own path. */
function endpoint(base: string, path: string): URL {
  return new URL(path, base.endsWith('/') ? base : `${base}/`);
}

const common = { maxBytes: LIMITS.webSearchResponseBytes, timeoutMs: LIMITS.webSearchTimeoutMs };

/** Hits as the tool returns them: only entries with a string URL, at most `count`. */
function hits(list: unknown, count: number, fields: { title: string; snippet: string }): WebSearchResult[] {
  if (!Array.isArray(list)) return [];
  return list
    .filter((hit): hit is Record<string, unknown> => typeof hit === 'object' && hit !== null && typeof (hit as { url?: unknown }).url === 'string')
    .slice(0, count)
    .map((hit) => ({ title: String(hit[fields.title] ?? ''), url: hit.url as string, snippet: String(hit[fields.snippet] ?? '') }));
}

/** SearXNG's `/search?format=json` (the instance must enable the json format); an optional key goes as a Bearer token. */
export class SearxngBackend implements WebSearchBackend {
  readonly name = 'searxng';
  constructor(private readonly options: BackendOptions) {}

  async search(query: string, { count, signal }: SearchOptions): Promise<WebSearchResult[]> {
    const apiKey = keyFrom(this.options, this.name, false);
    const url = endpoint(this.options.url, 'search');
    url.searchParams.set('q', query);
    url.searchParams.set('format', 'json');
    const body = (await requestJson(url, {
      ...common,
      what: 'SearXNG',
      signal,
      secret: apiKey,
      headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
      hints: { 403: 'enable the json format under search.formats in its settings.yml' },
      defaultHint: 'check the web_search url in the config',
    })) as { results?: unknown };
    return hits(body?.results, count, { title: 'title', snippet: 'content' });
  }
}

/** Brave Search's web search API: `GET /res/v1/web/search?q=&count=` with the key in X-Subscription-Token. */
export class BraveBackend implements WebSearchBackend {
  readonly name = 'brave';
  constructor(private readonly options: BackendOptions) {}

  async search(query: string, { count, signal }: SearchOptions): Promise<WebSearchResult[]> {
    const apiKey = keyFrom(this.options, this.name, true)!;
    const url = endpoint(this.options.url, 'res/v1/web/search');
    url.searchParams.set('q', query);
    url.searchParams.set('count', String(count));
    const body = (await requestJson(url, {
      ...common,
      what: 'Brave Search',
      signal,
      secret: apiKey,
      headers: { 'x-subscription-token': apiKey },
      hints: { 401: `check the key in ${this.options.apiKeyEnv}`, 422: `check the key in ${this.options.apiKeyEnv} and the query`, 429: 'the plan\'s rate or monthly quota is used up: wait, or raise it in the Brave Search API dashboard' },
      defaultHint: 'check web_search.url and the key',
    })) as { web?: { results?: unknown } };
    return hits(body?.web?.results, count, { title: 'title', snippet: 'description' });
  }
}

/** Tavily's search API: `POST /search` with `{ query, max_results }` and the key as a Bearer token. */
export class TavilyBackend implements WebSearchBackend {
  readonly name = 'tavily';
  constructor(private readonly options: BackendOptions) {}

  async search(query: string, { count, signal }: SearchOptions): Promise<WebSearchResult[]> {
    const apiKey = keyFrom(this.options, this.name, true)!;
    const body = (await requestJson(endpoint(this.options.url, 'search'), {
      ...common,
      what: 'Tavily',
      signal,
      secret: apiKey,
      headers: { authorization: `Bearer ${apiKey}` },
      body: { query, max_results: count },
      hints: { 401: `check the key in ${this.options.apiKeyEnv}`, 429: 'the rate limit is reached: wait and search again', 432: 'the plan\'s credits are used up: upgrade the plan in the Tavily dashboard' },
      defaultHint: 'check web_search.url and the key',
    })) as { results?: unknown };
    return hits(body?.results, count, { title: 'title', snippet: 'content' });
  }
}

/** The vendors' own endpoints, used when the config gives no url. */
const DEFAULT_URLS = { brave: 'https://api.search.brave.com', tavily: 'https://api.tavily.com' } as const;

/** The configured web search backend, if any. */
export function webSearchBackendFrom(config: XdogConfig, env: NodeJS.ProcessEnv = process.env): WebSearchBackend | undefined {
  const settings = config.web_search;
  if (!settings) return undefined;
  const options = { apiKeyEnv: settings.api_key_env, env };
  switch (settings.backend) {
    case 'searxng':
      return new SearxngBackend({ ...options, url: settings.url });
    case 'brave':
      return new BraveBackend({ ...options, url: settings.url ?? DEFAULT_URLS.brave });
    case 'tavily':
      return new TavilyBackend({ ...options, url: settings.url ?? DEFAULT_URLS.tavily });
  }
}
