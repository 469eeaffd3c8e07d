import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../../core/index.js';
import { McpRegistry } from '../../../plugins/mcp/index.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FIXTURE, fixtureStdio, groupAlive, processesMatching } from './support.js';

describe('McpRegistry against the edge-case fixture server', () => {
  const registry = new McpRegistry();

  beforeAll(async () => {
    registry.register('fx', fixtureStdio({ roots: [{ uri: 'file:///tmp/xdog-root', name: 'Workspace' }] }));
    await registry.connect('fx');
  });
  afterAll(() => registry.close());

  it('follows tool pagination and rejects tools with external refs or unknown dialects at discovery', () => {
    const names = registry.tools('fx').map((tool) => tool.name);
    expect(names).toContain('add');
    expect(names).toContain('dotted.name/with spaces'); // on the third page
    expect(names).not.toContain('external-ref');
    expect(names).not.toContain('unknown-dialect');
    const diagnostics = registry.status('fx')[0]!.diagnostics;
    expect(diagnostics.find((line) => line.includes('"external-ref"'))).toMatch(/\$ref outside the advertised document.*never fetched/);
    expect(diagnostics.find((line) => line.includes('"unknown-dialect"'))).toMatch(/unsupported JSON Schema dialect/);
  });

  it('follows resource pagination', async () => {
    const resources = await registry.catalog('fx', 'resource');
    expect(resources.map((entry) => entry.uri)).toEqual(Array.from({ length: 25 }, (_, i) => `fixture://r/${i}`));
  });

  it('gives names outside the provider rule a stable hashed alias within 64 characters', () => {
    const dotted = registry.tools('fx').find((tool) => tool.name === 'dotted.name/with spaces')!;
    expect(dotted.alias).toMatch(/^fx__dotted_name_with_spaces_[0-9a-f]{8}$/);
    expect(dotted.alias.length).toBeLessThanOrEqual(64);
  });

  it('honours a declared draft-04 schema (boolean exclusiveMaximum)', async () => {
    await expect(registry.callTool('fx', 'draft4', { n: 10 })).rejects.toThrow(/must be < 10/);
    const ok = await registry.callTool('fx', 'draft4', { n: 9 });
    expect(ok.content).toEqual([{ type: 'text', text: 'n=9' }]);
  });

  it('adds a labelled structured-output block when no text equals the structured content', async () => {
    const result = await registry.callTool('fx', 'add', { a: 2, b: 3 });
    expect(result.content).toEqual([
      { type: 'text', text: '5' },
      { type: 'text', text: '[MCP structured output]\n{"sum":5}' },
    ]);
  });

  it('turns isError with an image into an error result that keeps the image', async () => {
    const result = await registry.callTool('fx', 'error-image', {});
    expect(result.isError).toBe(true);
    expect(result.content.map((part) => part.type)).toEqual(['text', 'image']);
  });

  it('keeps structuredContent null with its presence flag', async () => {
    const result = await registry.callTool('fx', 'null-structured', {});
    expect(result.details).toMatchObject({ structuredContentPresent: true, structuredContent: null });
    expect(result.content.at(-1)).toEqual({ type: 'text', text: '[MCP structured output]\nnull' });
  });

  it('enforces an advertised output schema on success results', async () => {
    await expect(registry.callTool('fx', 'bad-output', {})).rejects.toThrow(/broke|do not match the schema/);
  });

  it('keeps audio inert and shows content metadata', async () => {
    const result = await registry.callTool('fx', 'audio', {});
    expect(result.details!.blocks[0]).toMatchObject({ contentType: 'audio', isBinary: true, bytes: 3, mimeType: 'audio/wav' });
    expect(result.content[0]).toEqual({ type: 'text', text: '[MCP audio: audio/wav, 3 bytes; kept as data, not played]' });
    expect(result.details!.mcpContentMetadata).toEqual([{ index: 0, annotations: { audience: ['user'], priority: 0.5 } }]);
    expect(result.content.at(-1)).toMatchObject({ type: 'text', text: expect.stringContaining('[MCP content metadata]') });
  });

  it('discloses the configured roots to the connected server', async () => {
    const result = await registry.callTool('fx', 'roots', {});
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual([{ uri: 'file:///tmp/xdog-root', name: 'Workspace' }]);
  });

  it('marks the server stale on a list-changed notice without refreshing by itself', async () => {
    expect(registry.status('fx')[0]!.stale).toBe(false);
    await registry.callTool('fx', 'announce-change', {});
    for (let i = 0; i < 100 && !registry.status('fx')[0]!.stale; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(registry.status('fx')[0]!.stale).toBe(true);
    await registry.refresh('fx');
    expect(registry.status('fx')[0]!.stale).toBe(false);
  });

  it('settles a cancelled call without retrying it', async () => {
    const controller = new AbortController();
    const call = registry.callTool('fx', 'hang', {}, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(call).rejects.toThrow(/cancelled|abort/i);
    expect(registry.status('fx')[0]!.state).toBe('connected');
  });
});

describe('failures', () => {
  it('a server that crashes mid-call gives a visible error, no hang, and a failed status', async () => {
    const registry = new McpRegistry();
    registry.register('boom', fixtureStdio({ env: { FIXTURE_SECRET: 'sekrit-42' } }));
    const { pid } = await registry.connect('boom');
    const error = await registry.callTool('boom', 'crash', {}).catch((caught: Error) => caught);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/connection lost.*code 3.*crashing on purpose.*not retried/s);
    const [status] = registry.status('boom');
    expect(status!.state).toBe('failed');
    expect(status!.error).toMatch(/exited/);
    // The server printed its secret env value; it is redacted from errors and status.
    expect((error as Error).message).toContain('FIXTURE_SECRET=[redacted]');
    expect(JSON.stringify(registry.status())).not.toContain('sekrit-42');
    expect(registry.tools('boom')).toEqual([]);
    await expect(registry.callTool('boom', 'add', { a: 1, b: 1 })).rejects.toThrow(/not connected/);
    expect(groupAlive(pid!)).toBe(false);
    await registry.close();
  });

  it.each([
    ['garbage', /malformed JSON-RPC frame/],
    ['flood', /frame over the 8388608-byte message limit/],
  ])('a server that writes %s to stdout is disconnected with the reason', async (tool, reason) => {
    const registry = new McpRegistry();
    registry.register('bad', fixtureStdio());
    const { pid } = await registry.connect('bad');
    await expect(registry.callTool('bad', tool, {})).rejects.toThrow(reason);
    expect(registry.status('bad')[0]).toMatchObject({ state: 'failed', error: expect.stringMatching(reason) });
    expect(groupAlive(pid!)).toBe(false);
    await registry.close();
  });

  it('a request that outlives the server timeout fails with a timeout error', async () => {
    const registry = new McpRegistry();
    registry.register('slow', fixtureStdio({ timeout: 3 }));
    await registry.connect('slow');
    await expect(registry.callTool('slow', 'hang', {})).rejects.toThrow(/timed out after 3 s.*not retried/);
    await registry.close();
  });

  it('disconnect during the handshake stops the connect and leaves no process', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xdog-mcp-race-'));
    const marker = path.join(dir, 'node-handshake-marker');
    fs.symlinkSync(process.execPath, marker);
    const registry = new McpRegistry();
    registry.register('race', { command: marker, args: [FIXTURE] });
    const connecting = registry.connect('race');
    await registry.disconnect('race');
    await expect(connecting).rejects.toThrow(/disconnected while connecting/);
    expect(registry.status('race')[0]!.state).toBe('disconnected');
    expect(processesMatching(marker)).toEqual([]);
    await registry.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a command that cannot start fails the connect with a hint', async () => {
    const registry = new McpRegistry();
    registry.register('missing', { command: '/nonexistent/mcp-server' });
    await expect(registry.connect('missing')).rejects.toThrow(/cannot start MCP server/);
    expect(registry.status('missing')[0]!.state).toBe('failed');
    await registry.close();
  });

  it('a server that dies during the handshake is named with the end of its stderr, saying what was left out', async () => {
    const registry = new McpRegistry();
    const script = `process.stderr.write('early-marker ' + 'x'.repeat(5000) + ' fatal: config missing\\n'); process.exit(2);`;
    registry.register('dies', { command: process.execPath, args: ['-e', script] });
    const error = await registry.connect('dies').catch((thrown: Error) => thrown);
    expect((error as Error).message).toMatch(/server process exited \(code 2\)/);
    expect((error as Error).message).toContain('fatal: config missing');
    expect((error as Error).message).not.toContain('early-marker');
    expect((error as Error).message).toMatch(/\[\d+ earlier characters of stderr not shown\]/);
    await registry.close();
  });

  it('never shows part of a configured env value that the stderr cut would split', async () => {
    const registry = new McpRegistry();
    const secret = 'sk-SECRET-VALUE-0123456789';
    // The secret ends exactly where the shown tail starts + 10 characters: a cut-then-redact would leak its end.
    const script = `process.stderr.write('token=' + process.env.TOKEN + 'x'.repeat(${LIMITS.mcpStderrShownChars - 10})); process.exit(2);`;
    registry.register('leaky', { command: process.execPath, args: ['-e', script], env: { TOKEN: secret } });
    const error = await registry.connect('leaky').catch((thrown: Error) => thrown);
    expect((error as Error).message).toContain('earlier characters of stderr not shown');
    expect((error as Error).message).not.toContain(secret.slice(-10));
    expect(registry.status('leaky')[0]!.error).not.toContain(secret.slice(-10));
    await registry.close();
  });

  it('validates programmatic configs with the config-file schema', () => {
    const registry = new McpRegistry();
    expect(() => registry.register('bad', { command: 'x', allow_tool: true })).toThrow(/bad: Unrecognized key|allow_tool/);
    expect(() => registry.register('no spaces', { command: 'x' })).toThrow(/ASCII letters/);
    registry.register('ok', { command: 'x' });
    expect(() => registry.register('ok', { command: 'x' })).toThrow(/already registered/);
  });
});
