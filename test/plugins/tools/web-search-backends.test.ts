/**
 * web_search against local stand-ins of Brave Search's and Tavily's APIs:
 * each answers only a request of the vendor's documented shape (path, method,
 * key header, parameters), as the real API does, so a wrong request fails here.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigSchema, createKernel, LIMITS, ToolContribution, type AgentTool, type AgentToolResult } from '../../../core/index.js';
import toolsPlugin, { BraveBackend, TavilyBackend, createWebSearchTool } from '../../../plugins/tools/index.js';

const KEY = 'test-key-0123456789';
let base = '';
let server: http.Server;
const seen: Array<{ method?: string; url?: string; headers: http.IncomingHttpHeaders; body: string }> = [];

function run(tool: AgentTool, args: Record<string, unknown>): Promise<AgentToolResult> {
  return tool.execute(args, { toolCallId: 't1', signal: new AbortController().signal, onUpdate: () => {}, toolCtx: {} });
}
const text = (result: AgentToolResult): string => result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body });
      const url = new URL(req.url ?? '/', 'http://x');
      const json = (status: number, value: unknown): void => void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      if (url.pathname === '/res/v1/web/search' && req.method === 'GET') {
        // Brave: the key in X-Subscription-Token, results under web.results with description.
        if (req.headers['x-subscription-token'] !== KEY) return json(401, { type: 'ErrorResponse', error: { code: 'SUBSCRIPTION_TOKEN_INVALID', detail: 'The provided subscription token is invalid.' } });
        if (url.searchParams.get('q') === 'quota') return json(429, { type: 'ErrorResponse', error: { code: 'RATE_LIMITED' } });
        const count = Number(url.searchParams.get('count'));
        const results = Array.from({ length: 20 }, (_, index) => ({ title: `Brave ${index}`, url: `https://brave.example/${index}`, description: `about ${url.searchParams.get('q')}` }));
        return json(200, { type: 'search', query: { original: url.searchParams.get('q') }, web: { type: 'search', results: results.slice(0, count) } });
      }
      if (url.pathname === '/search' && req.method === 'POST') {
        // Tavily: a JSON body with query and max_results, the key as a Bearer token.
        if (req.headers.authorization !== `Bearer ${KEY}`) return json(401, { detail: { error: 'Unauthorized: missing or invalid API key.' } });
        const request = JSON.parse(body) as { query: string; max_results: number };
        const results = Array.from({ length: request.max_results }, (_, index) => ({ title: `Tavily ${index}`, url: `https://tavily.example/${index}`, content: `on ${request.query}`, score: 0.9 }));
        return json(200, { query: request.query, results, response_time: 0.1 });
      }
      json(404, { error: 'not found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());

describe('web_search backends beyond SearXNG', () => {
  it('Brave Search: GET with the key in X-Subscription-Token, the count asked, descriptions as snippets', async () => {
    seen.length = 0;
    const tool = createWebSearchTool(new BraveBackend({ url: base, apiKeyEnv: 'BRAVE_KEY', env: { BRAVE_KEY: KEY } }));
    const result = await run(tool, { query: 'node js', count: 2 });
    expect(text(result)).toBe('1. Brave 0\n   https://brave.example/0\n   about node js\n2. Brave 1\n   https://brave.example/1\n   about node js');
    expect(seen[0]?.url).toBe('/res/v1/web/search?q=node+js&count=2');
  });

  it('Tavily: POST { query, max_results } with a Bearer key', async () => {
    seen.length = 0;
    const tool = createWebSearchTool(new TavilyBackend({ url: base, apiKeyEnv: 'TAVILY_KEY', env: { TAVILY_KEY: KEY } }));
    const result = await run(tool, { query: 'vitest', count: 1 });
    expect(text(result)).toBe('1. Tavily 0\n   https://tavily.example/0\n   on vitest');
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/search' });
    expect(JSON.parse(seen[0]!.body)).toEqual({ query: 'vitest', max_results: 1 });
  });

  it('a refused key names the status, the vendor\'s reason and the variable to check, never the key', async () => {
    const wrong = 'wrong-key-abcdef';
    const brave = await run(createWebSearchTool(new BraveBackend({ url: base, apiKeyEnv: 'BRAVE_KEY', env: { BRAVE_KEY: wrong } })), { query: 'x' });
    expect(brave.isError).toBe(true);
    expect(text(brave)).toMatch(/Brave Search at http:\/\/127\.0\.0\.1:\d+ answered HTTP 401: .*SUBSCRIPTION_TOKEN_INVALID/);
    const tavily = await run(createWebSearchTool(new TavilyBackend({ url: base, apiKeyEnv: 'TAVILY_KEY', env: { TAVILY_KEY: wrong } })), { query: 'x' });
    expect(text(tavily)).toContain('Tavily at');
    expect(text(tavily)).toContain('HTTP 401');
    for (const result of [brave, tavily]) expect(text(result)).not.toContain(wrong);
    // The hint reaches a person through the error; the tool shows the message to the model.
    await expect(new BraveBackend({ url: base, apiKeyEnv: 'BRAVE_KEY', env: { BRAVE_KEY: KEY } }).search('quota', { count: 1, signal: new AbortController().signal })).rejects.toMatchObject({
      hint: expect.stringContaining('quota'),
    });
  });

  it('an unset key variable fails before anything is sent', async () => {
    seen.length = 0;
    const result = await run(createWebSearchTool(new BraveBackend({ url: base, apiKeyEnv: 'XDOG_TEST_UNSET_BRAVE', env: {} })), { query: 'x' });
    expect(text(result)).toContain('XDOG_TEST_UNSET_BRAVE, which is not set');
    expect(seen).toEqual([]);
  });

  it('the config takes brave and tavily only with api_key_env, and the plugin wires the backend it names', async () => {
    expect(ConfigSchema.safeParse({ web_search: { backend: 'brave' } }).success).toBe(false);
    expect(ConfigSchema.safeParse({ web_search: { backend: 'tavily', api_key_env: 'TAVILY_API_KEY', api_key: 'inline' } }).success).toBe(false);
    process.env.XDOG_TEST_TAVILY_KEY = KEY;
    try {
      const kernel = await createKernel({ plugins: [toolsPlugin], config: { web_search: { backend: 'tavily', url: base, api_key_env: 'XDOG_TEST_TAVILY_KEY' } }, cwd: process.cwd() });
      const search = kernel.getAll(ToolContribution).find((tool) => tool.name === 'web_search')!;
      expect(text(await run(search, { query: 'wired', count: 1 }))).toContain('on wired');
    } finally {
      delete process.env.XDOG_TEST_TAVILY_KEY;
    }
  });

  it('a body declared over the limit is refused without reading it', async () => {
    const big = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(LIMITS.webSearchResponseBytes + 1) }).end());
    await new Promise<void>((resolve) => big.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(big.address() as AddressInfo).port}`;
      const result = await run(createWebSearchTool(new TavilyBackend({ url, apiKeyEnv: 'K', env: { K: KEY } })), { query: 'x' });
      expect(text(result)).toContain(`over the ${LIMITS.webSearchResponseBytes}-byte limit`);
    } finally {
      big.closeAllConnections();
      big.close();
    }
  });
});
