import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpRegistry } from '../../../plugins/mcp/index.js';
import { FILESYSTEM } from './support.js';

describe('McpRegistry against server-filesystem rooted in a temp dir', () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'xdog-mcp-fs-')));
  const outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'xdog-mcp-outside-')));
  const registry = new McpRegistry({ cwd: root });

  beforeAll(async () => {
    fs.writeFileSync(path.join(root, 'hello.txt'), 'hello from the root\n');
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'not yours\n');
    registry.register('fs', { command: process.execPath, args: [FILESYSTEM, root], timeout: 20, allow_tools: true });
    await registry.connect('fs');
  });
  afterAll(async () => {
    await registry.close();
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  });

  it('reads, writes and lists inside its root', async () => {
    const names = registry.tools('fs').map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['read_text_file', 'write_file', 'list_directory']));
    const read = await registry.callTool('fs', 'read_text_file', { path: path.join(root, 'hello.txt') });
    expect(JSON.stringify(read.content)).toContain('hello from the root');
    const written = await registry.callTool('fs', 'write_file', { path: path.join(root, 'new.txt'), content: 'written by MCP' });
    expect(written.isError).toBe(false);
    expect(fs.readFileSync(path.join(root, 'new.txt'), 'utf8')).toBe('written by MCP');
    const listing = await registry.callTool('fs', 'list_directory', { path: root });
    expect(JSON.stringify(listing.content)).toMatch(/hello\.txt.*new\.txt|new\.txt.*hello\.txt/);
  });

  it('reports its own refusal outside the root as an error result', async () => {
    const denied = await registry.callTool('fs', 'read_text_file', { path: path.join(outside, 'secret.txt') });
    expect(denied.isError).toBe(true);
    expect(JSON.stringify(denied.content)).toMatch(/denied|outside/i);
  });

  it('uses configured Roots as the server\'s allowed directories', async () => {
    const rooted = new McpRegistry({ cwd: root });
    rooted.register('fs-roots', {
      command: process.execPath,
      args: [FILESYSTEM, root],
      timeout: 20,
      roots: [{ uri: pathToFileURL(outside).href, name: 'Outside' }],
    });
    await rooted.connect('fs-roots');
    try {
      // The server asks for roots after initialization; ask until it has switched.
      let allowed = '';
      for (let attempt = 0; attempt < 50 && !allowed.includes(outside); attempt++) {
        allowed = JSON.stringify((await rooted.callTool('fs-roots', 'list_allowed_directories', {})).content);
      }
      expect(allowed).toContain(outside);
      const read = await rooted.callTool('fs-roots', 'read_text_file', { path: path.join(outside, 'secret.txt') });
      expect(JSON.stringify(read.content)).toContain('not yours');
    } finally {
      await rooted.close();
    }
  });
});
