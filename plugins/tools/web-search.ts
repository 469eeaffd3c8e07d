/**
 * The `web_search` tool, present only when a backend is configured. A
 * backend is one interface (web-search-backends.ts has SearXNG, Brave Search
 * and Tavily).
 */
import { z } from 'zod';
import { LIMITS, type AgentTool } from '../../core/index.js';
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
