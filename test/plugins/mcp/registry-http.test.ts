import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpRegistry } from '../../../plugins/mcp/index.js';
import { checkEndpoint } from '../../../plugins/mcp/http-transport.js';
import { startEverythingHttp } from './support.js';

describe('McpRegistry over Streamable HTTP against server-everything', () => {
  let server: Awaited<ReturnType<typeof startEverythingHttp>>;
  const registry = new McpRegistry({ env: { EVERY_TOKEN: 'secret-token-value' } });

  beforeAll(async () => {
    server = await startEverythingHttp();
    registry.register('web', { transport: 'http', url: server.url, headers_env: { 'X-Token': 'EVERY_TOKEN' }, timeout: 20 });
    await registry.connect('web');
  });
  afterAll(async () => {
    await registry.close();
    await server.stop();
  });

  it('discovers tools and reports status without header values', () => {
    expect(registry.tools('web').map((tool) => tool.alias)).toContain('web__echo');
    const [status] = registry.status('web');
    expect(status).toMatchObject({ state: 'connected', transport: 'http', headerNames: ['X-Token'] });
    // An initialize-era HTTP server refuses the sessionless server/discover with a 4xx and no modern error: legacy.
    expect(status).toMatchObject({ era: 'legacy', legacyReason: expect.stringMatching(/answered server\/discover with HTTP 4\d\d/) });
    expect(JSON.stringify(status)).not.toContain('secret-token-value');
  });

  it('calls text, image and structured tools and gets an error result', async () => {
    expect((await registry.callTool('web', 'echo', { message: 'over http' })).content).toEqual([{ type: 'text', text: 'Echo: over http' }]);
    const image = await registry.callTool('web', 'get-tiny-image', {});
    expect(image.content.some((part) => part.type === 'image')).toBe(true);
    const structured = await registry.callTool('web', 'get-structured-content', { location: 'New York' });
    expect(structured.details).toMatchObject({ structuredContentPresent: true, structuredContent: { temperature: 33 } });
    const failed = await registry.callTool('web', 'gzip-file-as-resource', { name: 'x.gz', data: 'ftp://example.invalid/x' });
    expect(failed.isError).toBe(true);
  });

  it('reads resources, gets prompts and completes arguments', async () => {
    const resources = await registry.catalog('web', 'resource');
    expect(resources.length).toBeGreaterThan(0);
    const document = await registry.resource('web', 'demo://resource/dynamic/text/7');
    expect(document.kind === 'resource' && document.blocks[0]!.text).toMatch(/Resource 7/);
    const prompt = await registry.prompt('web', 'completable-prompt', { department: 'Sales', name: 'Eve' });
    expect(prompt.kind === 'prompt' && prompt.messages[0]!.block.text).toMatch(/promote Eve to the head of the Sales team/);
    const completion = await registry.complete('web', { kind: 'prompt', name: 'completable-prompt', argument: 'department', prefix: 'E' });
    expect(completion.values).toEqual(['Engineering']);
  });
});

describe('HTTP endpoint policy', () => {
  it('rejects userinfo, fragments, other schemes and non-loopback plaintext', () => {
    expect(() => checkEndpoint('https://user:pw@example.test/mcp')).toThrow(/credentials in the URL/);
    expect(() => checkEndpoint('https://example.test/mcp#frag')).toThrow(/fragment/);
    expect(() => checkEndpoint('ftp://example.test/mcp')).toThrow(/unsupported scheme/);
    expect(() => checkEndpoint('http://example.test/mcp')).toThrow(/plaintext HTTP to a non-loopback host/);
    expect(checkEndpoint('http://example.test/mcp', true).host).toBe('example.test');
    expect(checkEndpoint('http://127.0.0.1:9/mcp').port).toBe('9');
  });

  it('does not follow redirects and names 401/403; headers_env must be set', async () => {
    const answer = { status: 302 };
    const stub = http.createServer((request, response) => {
      response.writeHead(answer.status, answer.status === 302 ? { location: 'http://127.0.0.1:1/elsewhere' } : {});
      response.end();
    });
    await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(stub.address() as AddressInfo).port}/mcp`;
    const registry = new McpRegistry({ env: {} });
    try {
      registry.register('redirect', { transport: 'http', url, timeout: 5 });
      await expect(registry.connect('redirect')).rejects.toThrow(/redirect \(HTTP 302\).*not followed/);
      answer.status = 401;
      await expect(registry.connect('redirect')).rejects.toThrow(/refused the request \(HTTP 401\)/);
      registry.register('needs-env', { transport: 'http', url, headers_env: { Authorization: 'MISSING_TOKEN' } });
      await expect(registry.connect('needs-env')).rejects.toThrow(/MISSING_TOKEN, which is not set/);
      registry.register('reserved', { transport: 'http', url, headers: { 'Mcp-Session-Id': 'x' } });
      await expect(registry.connect('reserved')).rejects.toThrow(/set by the MCP transport/);
    } finally {
      await registry.close();
      stub.close();
    }
  });

  it('refuses a header value with a line break, naming the variable but never the value', async () => {
    const secret = 'Bearer sk-line\nbreak-secret';
    const registry = new McpRegistry({ env: { BROKEN_TOKEN: secret } });
    try {
      registry.register('broken', { transport: 'http', url: 'http://127.0.0.1:9/mcp', timeout: 5, headers_env: { Authorization: 'BROKEN_TOKEN' } });
      const error = (await registry.connect('broken').catch((thrown: Error) => thrown)) as Error;
      expect(error.message).toMatch(/header "Authorization" from BROKEN_TOKEN contains a line break or control character/);
      expect(error.message).not.toContain('break-secret');
      expect(JSON.stringify(registry.status('broken'))).not.toContain('break-secret');
    } finally {
      await registry.close();
    }
  });
});
