/**
 * The embed tool against local stand-ins of OpenAI's and Gemini's embeddings
 * APIs (the documented paths, key headers and request/response shapes), as an
 * Agent option, as the tools plugin's config-driven tool, and through the
 * built CLI.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, createKernel, ToolContribution, type AgentTool, type AgentToolResult, type EmbedFunction, type ModelStreamFn, type XdogConfig } from '../../../core/index.js';
import toolsPlugin from '../../../plugins/tools/index.js';
import { runCliAsync } from '../../support/cli.js';
import { tempDir, writeTree } from '../../support/temp.js';

const KEY = 'embed-key-0123456789';
let base = '';
let server: http.Server;
const seen: Array<{ url?: string; headers: http.IncomingHttpHeaders; body: any }> = [];

/** A deterministic vector per text: its length, its vowel count, and 1. */
const vector = (text: string): number[] => [text.length, (text.match(/[aeiou]/g) ?? []).length, 1];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      const body = raw ? JSON.parse(raw) : undefined;
      seen.push({ url: req.url, headers: req.headers, body });
      const json = (status: number, value: unknown): void => void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      if (req.method === 'POST' && req.url === '/v1/embeddings') {
        // OpenAI's shape; a keyless OpenAI-compatible server takes no Authorization at all.
        const keyless = body.model === 'local-embed';
        if (!keyless && req.headers.authorization !== `Bearer ${KEY}`) return json(401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } });
        const input: string[] = body.input;
        // Answered in reverse: the client must order vectors by index.
        const data = input.map((text, index) => ({ object: 'embedding', index, embedding: vector(text) })).reverse();
        return json(200, { object: 'list', data, model: body.model, usage: { prompt_tokens: 3, total_tokens: 3 } });
      }
      const gemini = /^\/v1beta\/models\/([\w.-]+):batchEmbedContents$/.exec(req.url ?? '');
      if (req.method === 'POST' && gemini) {
        if (req.headers['x-goog-api-key'] !== KEY) return json(403, { error: { code: 403, message: 'API key not valid', status: 'PERMISSION_DENIED' } });
        const requests: Array<{ model: string; content: { parts: Array<{ text: string }> } }> = body.requests;
        if (requests.some((request) => request.model !== `models/${gemini[1]}`)) return json(400, { error: { code: 400, message: 'model mismatch' } });
        return json(200, { embeddings: requests.map((request) => ({ values: vector(request.content.parts[0]!.text) })) });
      }
      json(404, { error: { message: `no route ${req.url}` } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());

function run(tool: AgentTool, args: Record<string, unknown>): Promise<AgentToolResult> {
  return tool.execute(args, { toolCallId: 't1', signal: new AbortController().signal, onUpdate: () => {}, toolCtx: {} });
}
const text = (result: AgentToolResult): string => result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');

async function embedTool(config: XdogConfig): Promise<AgentTool | undefined> {
  const kernel = await createKernel({ plugins: [toolsPlugin], config, cwd: process.cwd() });
  return kernel.getAll(ToolContribution).find((tool) => tool.name === 'embed');
}

describe('embed', () => {
  it('openai: POST /embeddings with the provider key, vectors back in input order', async () => {
    process.env.XDOG_TEST_OPENAI_EMBED_KEY = KEY;
    try {
      const tool = await embedTool({ embed: { provider: 'openai', model: 'text-embedding-3-small' }, providers: { openai: { base_url: `${base}/v1`, api_key_env: 'XDOG_TEST_OPENAI_EMBED_KEY' } } });
      seen.length = 0;
      const result = await run(tool!, { texts: ['hello', 'ab'] });
      expect(result.isError).toBeFalsy();
      expect(JSON.parse(text(result))).toEqual({ model: 'openai/text-embedding-3-small', dimensions: 3, vectors: [vector('hello'), vector('ab')] });
      expect(seen[0]!.body).toEqual({ model: 'text-embedding-3-small', input: ['hello', 'ab'], encoding_format: 'float' });
      const similar = JSON.parse(text(await run(tool!, { texts: ['aaaa', 'aaaa', 'zz'], similarity: true }))) as { similarity: number[][] };
      expect(similar.similarity[0]![1]).toBe(1);
      expect(similar.similarity[0]![2]).toBeLessThan(1);
    } finally {
      delete process.env.XDOG_TEST_OPENAI_EMBED_KEY;
    }
  });

  it('google: batchEmbedContents with x-goog-api-key', async () => {
    process.env.XDOG_TEST_GEMINI_EMBED_KEY = KEY;
    try {
      const tool = await embedTool({ embed: { provider: 'google', model: 'gemini-embedding-001' }, providers: { google: { base_url: base, api_key_env: 'XDOG_TEST_GEMINI_EMBED_KEY' } } });
      const result = await run(tool!, { texts: ['one', 'three'] });
      expect(JSON.parse(text(result))).toMatchObject({ model: 'google/gemini-embedding-001', vectors: [vector('one'), vector('three')] });
    } finally {
      delete process.env.XDOG_TEST_GEMINI_EMBED_KEY;
    }
  });

  it('an OpenAI-compatible providers.<name> without api_key_env sends no key at all', async () => {
    process.env.OPENAI_API_KEY = 'must-not-leak-to-local';
    try {
      const tool = await embedTool({ embed: { provider: 'local', model: 'local-embed' }, providers: { local: { type: 'openai', base_url: `${base}/v1` } } });
      seen.length = 0;
      expect(JSON.parse(text(await run(tool!, { texts: ['x'] })))).toMatchObject({ vectors: [vector('x')] });
      expect(seen[0]!.headers.authorization).toBeUndefined();
    } finally {
      delete process.env.OPENAI_API_KEY;
    }
  });

  it('a refused key is an error naming the status and the fix, never the key', async () => {
    const wrong = 'wrong-embed-key-zzzz';
    process.env.XDOG_TEST_OPENAI_EMBED_KEY = wrong;
    try {
      const tool = await embedTool({ embed: { provider: 'openai', model: 'text-embedding-3-small' }, providers: { openai: { base_url: `${base}/v1`, api_key_env: 'XDOG_TEST_OPENAI_EMBED_KEY' } } });
      const result = await run(tool!, { texts: ['x'] });
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/the openai embeddings API at http:\/\/127\.0\.0\.1:\d+ answered HTTP 401: .*invalid_api_key/);
      expect(text(result)).not.toContain(wrong);
    } finally {
      delete process.env.XDOG_TEST_OPENAI_EMBED_KEY;
    }
  });

  it('exists only when configured; a provider without an embeddings API fails the boot with the fix', async () => {
    expect(await embedTool({})).toBeUndefined();
    await expect(embedTool({ embed: { provider: 'anthropic', model: 'x' } })).rejects.toMatchObject({ message: expect.stringContaining('has no embeddings API xdog speaks: use openai, google, or a providers.<name> entry with type: openai') });
    await expect(embedTool({ embed: { provider: 'local', model: 'x' }, providers: { local: { type: 'openai' } } })).rejects.toMatchObject({ message: expect.stringContaining('has no base_url') });
  });

  it('Agent({ embed }) adds the tool (kept through setTools), and a model call runs it; without the option there is none', async () => {
    const calls: string[][] = [];
    const embed: EmbedFunction = Object.assign(async (texts: readonly string[]) => (calls.push([...texts]), texts.map(vector)), { model: 'test/embedder' });
    let turn = 0;
    const stream: ModelStreamFn = async function* (model) {
      turn++;
      const message =
        turn === 1
          ? { role: 'assistant' as const, content: [{ type: 'toolCall' as const, id: 'c1', name: 'embed', arguments: { texts: ['abc'] } }], stopReason: 'toolUse' as const }
          : { role: 'assistant' as const, content: [{ type: 'text' as const, text: 'done' }], stopReason: 'stop' as const };
      const full = { ...message, model, usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, timestamp: Date.now() };
      yield { type: 'done', reason: full.stopReason, message: full } as never;
    };
    const agent = new Agent(stream, { model: 'faux/demo' }, { embed });
    expect(agent.tools.map((tool) => tool.name)).toEqual(['embed']);
    agent.setTools([]);
    expect(agent.tools.map((tool) => tool.name)).toEqual(['embed']);
    const result = await agent.prompt('embed abc').result();
    expect(result.status).toBe('completed');
    expect(calls).toEqual([['abc']]);
    const toolResult = agent.messages.find((message) => message.role === 'toolResult') as unknown as { content: Array<{ text: string }> };
    expect(JSON.parse(toolResult.content[0]!.text)).toMatchObject({ model: 'test/embedder', vectors: [vector('abc')] });
    expect(new Agent(stream, { model: 'faux/demo' }).tools).toEqual([]);
    await agent.close();
  });

  it('xdog agent chat gives the model embed when the config names it', { timeout: 120_000 }, async () => {
    const root = tempDir('xdog-embed-chat-');
    writeTree(root, {
      'script.json': { responses: [{ toolCalls: [{ name: 'embed', arguments: { texts: ['hi'] } }] }, { text: 'embedded' }] },
      'config/xdog/config.yaml': `embed:\n  provider: local\n  model: local-embed\nproviders:\n  local:\n    type: openai\n    base_url: ${base}/v1\n`,
    });
    const env = { XDG_CONFIG_HOME: path.join(root, 'config'), XDG_DATA_HOME: path.join(root, 'data'), XDOG_FAUX_SCRIPT: path.join(root, 'script.json'), XDOG_FAUX_LOG: path.join(root, 'requests.jsonl') };
    const result = await runCliAsync(['agent', 'chat', 'faux/demo', 'embed hi', '--cwd', root], { env, cwd: root });
    expect(result.stderr).toContain('[tool] embed');
    expect(result.status).toBe(0);
    const requests = fs.readFileSync(env.XDOG_FAUX_LOG, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { messages: Array<{ role: string; content: unknown }>; tools: Array<{ name: string }> });
    expect(requests[0]!.tools.map((tool) => tool.name)).toContain('embed');
    expect(JSON.stringify(requests[1]!.messages.at(-1))).toContain('"dimensions\\":3');
  });
});
