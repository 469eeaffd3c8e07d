/**
 * Closing an HTTP MCP connection ends the server's session with DELETE, as the
 * Streamable HTTP transport specifies, against the SDK's own server transport.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { McpRegistry } from '../../../plugins/mcp/index.js';

async function startServer(): Promise<{ url: string; opened: string[]; closed: string[]; methods: string[]; stop(): Promise<void> }> {
  const opened: string[] = [];
  const closed: string[] = [];
  const methods: string[] = [];
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => void opened.push(id),
    onsessionclosed: (id) => void closed.push(id),
  });
  const mcp = new McpServer({ name: 'session-probe', version: '1.0.0' });
  await mcp.connect(transport);
  const server = http.createServer((req, res) => {
    methods.push(req.method ?? '');
    void transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    opened,
    closed,
    methods,
    stop: async () => {
      await mcp.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('HTTP MCP session end', () => {
  it('sends DELETE with the session id when the registry closes', async () => {
    const server = await startServer();
    try {
      const registry = new McpRegistry({ env: {} });
      registry.register('probe', { transport: 'http', url: server.url, timeout: 10 });
      await registry.connect('probe');
      expect(server.opened).toHaveLength(1);
      expect(server.closed).toEqual([]);
      await registry.close();
      expect(server.methods).toContain('DELETE');
      expect(server.closed).toEqual(server.opened);
    } finally {
      await server.stop();
    }
  });
});
