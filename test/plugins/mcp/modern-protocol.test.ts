/**
 * The 2026-07-28 protocol against a server of that revision (the fixture: no
 * published server or SDK speaks it yet): server/discover first and no
 * initialize, per-request _meta, the HTTP request headers and x-mcp-header
 * mirrors, ca_file, and input_required rounds for Roots, elicitation and
 * sampling. The legacy path is checked against the real npm servers in
 * registry-stdio.test.ts and registry-http.test.ts.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpRegistry, type McpElicitation, type McpSamplingRequest } from '../../../plugins/mcp/index.js';
// @ts-expect-error: a plain ESM fixture without types
import { handle } from './fixtures/modern-server.mjs';

const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures/modern-server.mjs');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'xdog-modern-'));

interface Logged {
  method: string;
  headers: Record<string, string>;
  meta: Record<string, unknown> | null;
  params: Record<string, unknown>;
}

function readLog(file: string): Logged[] {
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as Logged);
}

function stdioServer(log: string, extra: Record<string, unknown> = {}, env: Record<string, string> = {}): Record<string, unknown> {
  return { command: process.execPath, args: [FIXTURE, 'stdio'], env: { MODERN_LOG: log, ...env }, timeout: 20, ...extra };
}

function textOf(result: { content: Array<{ type: string; text?: string }> }): string {
  return result.content.map((part) => part.text ?? '').join('');
}

/** Serves the fixture over HTTP(S): JSON for most answers, an SSE stream (a progress notice, then the response) for tools/call. */
function serve(server: http.Server | https.Server): Promise<string> {
  server.on('request', (request: http.IncomingMessage, response: http.ServerResponse) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      if (request.method !== 'POST') return void response.writeHead(405).end();
      const message = JSON.parse(body) as { id?: number; method: string };
      const { status, body: answer } = handle(message, request.headers) as { status: number; body?: unknown };
      if (answer === undefined) return void response.writeHead(status).end();
      if (message.method === 'tools/call' && status === 200) {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write(`data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } })}\n\n`);
        response.end(`event: message\ndata: ${JSON.stringify(answer)}\n\n`);
        return;
      }
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(String((server.address() as AddressInfo).port))));
}

describe('MCP 2026-07-28 over stdio', () => {
  const log = path.join(tmp, 'stdio.log');
  const registry = new McpRegistry();

  beforeAll(async () => {
    registry.register('modern', stdioServer(log, { roots: [{ uri: 'file:///srv/project', name: 'project' }] }));
    await registry.connect('modern');
  });
  afterAll(() => registry.close());

  it('probes server/discover first, never sends initialize, and reports the modern era', () => {
    const methods = readLog(log).map((entry) => entry.method);
    expect(methods[0]).toBe('server/discover');
    expect(methods).not.toContain('initialize');
    expect(methods).toContain('tools/list');
    const [status] = registry.status('modern');
    expect(status).toMatchObject({ state: 'connected', era: 'modern', protocolVersion: '2026-07-28', server: { name: 'modern-fixture', version: '1.0.0' }, capabilities: ['tools'] });
    // stdio ignores x-mcp-header: the tool with a broken annotation is usable there.
    expect(registry.tools('modern').map((tool) => tool.name)).toContain('bad_mirror');
  });

  it('carries version, client identity and capabilities in every request\'s _meta', async () => {
    await registry.callTool('modern', 'echo', { message: 'hi' });
    for (const entry of readLog(log)) {
      expect(entry.meta).toMatchObject({
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'xdog' },
        'io.modelcontextprotocol/clientCapabilities': { roots: { listChanged: false }, elicitation: { form: {} } },
      });
    }
  });

  it('answers an input_required round with the configured Roots and echoes the requestState', async () => {
    const result = await registry.callTool('modern', 'list_roots', {});
    expect(textOf(result)).toBe('file:///srv/project');
    const calls = readLog(log).filter((entry) => entry.method === 'tools/call' && entry.params.name === 'list_roots');
    expect(calls).toHaveLength(2);
    expect(calls[1]!.params).toMatchObject({ requestState: 'round-1', inputResponses: { roots: { roots: [{ uri: 'file:///srv/project', name: 'project' }] } } });
  });

  it('declines an elicitation with a reason when nobody can answer (headless)', async () => {
    const result = await registry.callTool('modern', 'ask_name', {});
    expect(textOf(result)).toMatch(/^decline: no person can answer here \(headless\)/);
  });

  it('declares no sampling capability unless the host enables it', async () => {
    expect(textOf(await registry.callTool('modern', 'summarize', { text: 'long' }))).toBe('sampling not offered by the client');
  });
});

describe('MCP 2026-07-28 elicitation and sampling with host handlers', () => {
  const log = path.join(tmp, 'handlers.log');
  const asked: McpElicitation[] = [];
  const sampled: McpSamplingRequest[] = [];
  const registry = new McpRegistry({
    handlers: {
      elicit: async (request) => (asked.push(request), { action: 'accept', content: { name: 'Ada' } }),
      sample: async (request) => (sampled.push(request), { text: 'short', model: 'faux/demo', stopReason: 'endTurn' }),
    },
  });

  beforeAll(async () => {
    registry.register('modern', stdioServer(log));
    await registry.connect('modern');
  });
  afterAll(() => registry.close());

  it('shows the form to the person and sends the checked answer back in the retry', async () => {
    expect(textOf(await registry.callTool('modern', 'ask_name', {}))).toBe('Hello, Ada');
    expect(asked).toEqual([{ server: 'modern', message: 'What is your name?', fields: { name: { type: 'string', title: 'Name' } }, required: ['name'] }]);
  });

  it('runs sampling on the host\'s handler when it is enabled', async () => {
    expect(textOf(await registry.callTool('modern', 'summarize', { text: 'long' }))).toBe('summary by faux/demo: short');
    expect(sampled).toEqual([{ server: 'modern', messages: [{ role: 'user', text: 'Summarize: long' }], maxTokens: 50 }]);
  });
});

describe('MCP 2026-07-28 version rejection', () => {
  it('is a modern server: the error names its versions and no initialize is tried', async () => {
    const log = path.join(tmp, 'reject.log');
    const registry = new McpRegistry();
    registry.register('future', stdioServer(log, {}, { MODERN_MODE: 'reject-version' }));
    try {
      const error = await registry.connect('future').catch((thrown: Error) => thrown);
      expect((error as Error).message).toMatch(/does not support protocol 2026-07-28 \(it supports 2027-01-01\); it is a 2026-era server, so no legacy initialize was tried/);
      expect(readLog(log).map((entry) => entry.method)).toEqual(['server/discover']);
      expect(registry.status('future')[0]!.state).toBe('failed');
    } finally {
      await registry.close();
    }
  });
});

describe('MCP 2026-07-28 over Streamable HTTP', () => {
  const log = path.join(tmp, 'http.log');
  const server = http.createServer();
  const registry = new McpRegistry();
  let previous: string | undefined;

  beforeAll(async () => {
    previous = process.env.MODERN_LOG;
    process.env.MODERN_LOG = log;
    const port = await serve(server);
    registry.register('web', { transport: 'http', url: `http://127.0.0.1:${port}/mcp`, timeout: 20 });
    await registry.connect('web');
  });
  afterAll(async () => {
    await registry.close();
    server.close();
    if (previous === undefined) delete process.env.MODERN_LOG;
    else process.env.MODERN_LOG = previous;
  });

  it('sends the request headers on every POST and opens no session', () => {
    const entries = readLog(log);
    expect(entries.map((entry) => entry.method)).toEqual(['server/discover', 'tools/list']);
    for (const entry of entries) {
      expect(entry.headers).toMatchObject({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': entry.method, 'mcp-client-info': 'xdog/0.1.0' });
      expect(entry.headers['mcp-session-id']).toBeUndefined();
    }
    expect(registry.status('web')[0]).toMatchObject({ era: 'modern', protocolVersion: '2026-07-28' });
  });

  it('rejects a tool whose x-mcp-header breaks the rules, keeping the others', () => {
    const names = registry.tools('web').map((tool) => tool.name);
    expect(names).toContain('echo');
    expect(names).not.toContain('bad_mirror');
    expect(registry.status('web')[0]!.diagnostics).toEqual([expect.stringMatching(/tool "bad_mirror" rejected: x-mcp-header of property "amount" is on a "number" property/)]);
  });

  it('mirrors the tool name and annotated arguments into headers, base64 when not plain ASCII, and reads an SSE answer', async () => {
    const plain = await registry.callTool('web', 'echo', { message: 'one', region: 'us-west1' });
    expect(textOf(plain)).toBe('Echo: one from us-west1');
    await registry.callTool('web', 'echo', { message: 'two', region: 'Zürich' });
    await registry.callTool('web', 'echo', { message: 'three' });
    const calls = readLog(log).filter((entry) => entry.method === 'tools/call');
    expect(calls.map((entry) => [entry.headers['mcp-name'], entry.headers['mcp-param-region']])).toEqual([
      ['echo', 'us-west1'],
      ['echo', `=?base64?${Buffer.from('Zürich').toString('base64')}?=`],
      ['echo', undefined],
    ]);
  });

  it('refuses a configured header that would shadow a protocol header', () => {
    const other = new McpRegistry();
    other.register('shadow', { transport: 'http', url: 'http://127.0.0.1:1/mcp', headers: { 'Mcp-Param-Region': 'x' } });
    return expect(other.connect('shadow')).rejects.toThrow(/header "Mcp-Param-Region" is set by the MCP transport/);
  });
});

describe('ca_file', () => {
  const dir = path.join(tmp, 'tls');
  let url = '';
  let server: https.Server;

  beforeAll(async () => {
    fs.mkdirSync(dir);
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')], { stdio: 'ignore' });
    server = https.createServer({ key: fs.readFileSync(path.join(dir, 'key.pem')), cert: fs.readFileSync(path.join(dir, 'cert.pem')) });
    url = `https://127.0.0.1:${await serve(server)}/mcp`;
  });
  afterAll(() => server.close());

  it('trusts the given CA for that server only, and fails without it', async () => {
    const registry = new McpRegistry();
    registry.register('private', { transport: 'http', url, ca_file: path.join(dir, 'cert.pem'), timeout: 20 });
    registry.register('untrusted', { transport: 'http', url, timeout: 20 });
    try {
      await registry.connect('private');
      expect(textOf(await registry.callTool('private', 'echo', { message: 'tls' }))).toBe('Echo: tls from nowhere');
      await expect(registry.connect('untrusted')).rejects.toThrow(/cannot reach the MCP server at https:\/\/127\.0\.0\.1:\d+: (SELF_SIGNED_CERT|DEPTH_ZERO|UNABLE_TO_VERIFY)/);
    } finally {
      await registry.close();
    }
  });

  it('names a ca_file that holds no certificate', async () => {
    fs.writeFileSync(path.join(dir, 'empty.pem'), 'nothing here\n');
    const registry = new McpRegistry();
    registry.register('broken', { transport: 'http', url, ca_file: path.join(dir, 'empty.pem') });
    await expect(registry.connect('broken')).rejects.toThrow(/ca_file .*empty\.pem holds no PEM certificate/);
    await registry.close();
  });
});
