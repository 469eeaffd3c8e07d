import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpRegistry } from '../../../plugins/mcp/index.js';
import { startFixtureHttp } from './support.js';

describe('McpRegistry over Streamable HTTP against the fixture server', () => {
  let server: Awaited<ReturnType<typeof startFixtureHttp>>;
  const registry = new McpRegistry();

  beforeAll(async () => {
    server = await startFixtureHttp();
    registry.register('fxh', { transport: 'http', url: server.url, timeout: 20 });
    await registry.connect('fxh');
  });
  afterAll(async () => {
    await registry.close();
    server.child.kill('SIGKILL');
  });

  it('follows tool and resource pagination and rejects an external $ref tool', async () => {
    expect(registry.tools('fxh').map((tool) => tool.name)).toContain('dotted.name/with spaces');
    expect(registry.status('fxh')[0]!.diagnostics.join('\n')).toMatch(/"external-ref" rejected/);
    expect((await registry.catalog('fxh', 'resource')).length).toBe(25);
  });

  it('keeps isError images and structured content', async () => {
    expect((await registry.callTool('fxh', 'error-image', {})).content.map((part) => part.type)).toEqual(['text', 'image']);
    expect((await registry.callTool('fxh', 'add', { a: 1, b: 2 })).details).toMatchObject({ structuredContent: { sum: 3 } });
  });

  it('a server that dies mid-call gives a visible error and no hang', async () => {
    const error = await registry.callTool('fxh', 'crash', {}).catch((caught: Error) => caught);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/^cannot reach the MCP server at http:\/\/127.0.0.1:\d+: .*not retried/);
    await expect(registry.callTool('fxh', 'add', { a: 1, b: 1 })).rejects.toThrow(/cannot reach the MCP server/);
  });
});
