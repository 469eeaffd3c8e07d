import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { draftText, McpRegistry } from '../../../plugins/mcp/index.js';
import { EVERYTHING, everythingStdio, groupAlive, processesMatching } from './support.js';

describe('McpRegistry over stdio against server-everything', () => {
  const registry = new McpRegistry();

  beforeAll(async () => {
    registry.register('every', everythingStdio({ env: { EVERYTHING_SECRET: 'hunter2-value' } }));
    await registry.connect('every');
  });
  afterAll(() => registry.close());

  it('discovers tools under namespaced aliases and reports status without env values', () => {
    const tools = registry.tools('every');
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['echo', 'get-sum', 'get-tiny-image', 'get-structured-content']));
    expect(tools.find((tool) => tool.name === 'echo')?.alias).toBe('every__echo');
    const [status] = registry.status('every');
    expect(status).toMatchObject({ state: 'connected', transport: 'stdio', envNames: ['EVERYTHING_SECRET'], allowTools: false });
    expect(status!.server?.name).toBeTruthy();
    expect(status!.protocolVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    // server/discover first; server-everything (SDK 1.x) says method-not-found, so the initialize handshake follows.
    expect(status).toMatchObject({ era: 'legacy', legacyReason: 'server/discover is an unknown method there' });
    expect(JSON.stringify(registry.status())).not.toContain('hunter2-value');
  });

  it('calls a text tool', async () => {
    const result = await registry.callTool('every', 'echo', { message: 'ping' });
    expect(result.isError).toBe(false);
    expect(result.content).toEqual([{ type: 'text', text: 'Echo: ping' }]);
    expect(result.details?.structuredContentPresent).toBe(false);
  });

  it('keeps an image as an image part and a typed block', async () => {
    const result = await registry.callTool('every', 'get-tiny-image', {});
    const image = result.content.find((part) => part.type === 'image');
    expect(image).toMatchObject({ type: 'image', mimeType: 'image/png' });
    const block = result.details!.blocks.find((entry) => entry.contentType === 'image');
    expect(block).toMatchObject({ isBinary: true, mimeType: 'image/png' });
    expect(block!.bytes).toBeGreaterThan(0);
  });

  it('validates structured output and shows it to the model when no text equals it', async () => {
    const result = await registry.callTool('every', 'get-structured-content', { location: 'Chicago' });
    expect(result.isError).toBe(false);
    expect(result.details).toMatchObject({
      structuredContentPresent: true,
      structuredContent: { temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 },
    });
    const texts = result.content.filter((part) => part.type === 'text').map((part) => (part as { text: string }).text);
    // server-everything already sends the JSON as text, so no labelled copy is added.
    expect(texts.filter((text) => text.includes('"temperature":36') || text.includes('"temperature": 36')).length).toBe(1);
  });

  it('rejects arguments that break the advertised input schema before calling', async () => {
    await expect(registry.callTool('every', 'get-structured-content', { location: 'Paris' })).rejects.toThrow(/do not match the schema/);
    await expect(registry.callTool('every', 'get-sum', { a: 'one', b: 2 })).rejects.toThrow(/\/a must be number/);
  });

  it('turns a server isError result into an error result that keeps its content', async () => {
    const result = await registry.callTool('every', 'gzip-file-as-resource', { name: 'x.gz', data: 'ftp://example.invalid/x' });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/Unsupported URL protocol/);
  });

  it('keeps resource links as inert, typed links', async () => {
    const result = await registry.callTool('every', 'get-resource-links', { count: 2 });
    const links = result.details!.blocks.filter((block) => block.contentType === 'resource_link');
    expect(links.length).toBe(2);
    expect(JSON.stringify(result.content)).toMatch(/not fetched/);
  });

  it('lists resources and templates, reads one as a frozen document', async () => {
    const resources = await registry.catalog('every', 'resource');
    expect(resources.length).toBeGreaterThan(0);
    expect(Object.isFrozen(resources)).toBe(true);
    const text = resources.find((entry) => entry.mimeType?.startsWith('text/'))!;
    const document = await registry.resource('every', text.uri);
    expect(document.kind).toBe('resource');
    expect(Object.isFrozen(document)).toBe(true);
    expect(draftText(document).length).toBeGreaterThan(0);
    const templates = await registry.catalog('every', 'template');
    expect(templates.map((entry) => entry.uriTemplate)).toContain('demo://resource/dynamic/blob/{resourceId}');
  });

  it('refuses to draft a binary resource as text', async () => {
    const document = await registry.resource('every', 'demo://resource/dynamic/blob/3');
    expect(document.kind === 'resource' && document.blocks[0]!.isBinary).toBe(true);
    expect(() => draftText(document)).toThrow(/binary resource_blob block/);
  });

  it('lists prompts, checks their arguments and gets one', async () => {
    const prompts = await registry.catalog('every', 'prompt');
    const names = prompts.map((prompt) => prompt.name);
    expect(names.length).toBeGreaterThan(0);
    const withArgs = prompts.find((prompt) => prompt.arguments.some((arg) => arg.required))!;
    await expect(registry.prompt('every', withArgs.name, {})).rejects.toThrow(/needs argument/);
    await expect(registry.prompt('every', withArgs.name, { nope: 'x' })).rejects.toThrow(/has no argument "nope"/);
    const simple = prompts.find((prompt) => prompt.arguments.length === 0)!;
    const document = await registry.prompt('every', simple.name);
    expect(document.kind === 'prompt' && document.messages.length).toBeGreaterThan(0);
  });

  it('completes a prompt argument', async () => {
    const prompts = await registry.catalog('every', 'prompt');
    const completable = prompts.find((prompt) => prompt.name === 'completable-prompt')!;
    expect(completable).toBeDefined();
    const completion = await registry.complete('every', { kind: 'prompt', name: completable.name, argument: 'department', prefix: 'S' });
    expect(completion.values).toEqual(['Sales', 'Support']);
    expect(Object.isFrozen(completion.values)).toBe(true);
    const names = await registry.complete('every', {
      kind: 'prompt',
      name: completable.name,
      argument: 'name',
      prefix: '',
      context: { department: 'Engineering' },
    });
    expect(names.values).toEqual(['Alice', 'Bob', 'Charlie']);
    await expect(
      registry.complete('every', { kind: 'prompt', name: completable.name, argument: 'name', prefix: '', context: { name: 'x' } }),
    ).rejects.toThrow(/may not contain the argument/);
  });

  it('runs one completion per server with one waiting, and refuses a third', async () => {
    const ask = () => registry.complete('every', { kind: 'prompt', name: 'completable-prompt', argument: 'department', prefix: 'M' });
    const first = ask();
    const second = ask();
    await expect(ask()).rejects.toThrow(/already has a completion running and one waiting/);
    expect((await first).values).toEqual(['Marketing']);
    expect((await second).values).toEqual(['Marketing']);
    expect((await ask()).values).toEqual(['Marketing']);
  });

  it('completes a resource template argument', async () => {
    const completion = await registry.complete('every', {
      kind: 'resource',
      name: 'demo://resource/dynamic/text/{resourceId}',
      argument: 'resourceId',
      prefix: '1',
    });
    expect(completion.values).toEqual(['1']);
  });

  it('disconnect terminates and reaps the server process group', async () => {
    const other = new McpRegistry();
    other.register('gone', everythingStdio());
    const status = await other.connect('gone');
    expect(status.pid).toBeGreaterThan(0);
    expect(groupAlive(status.pid!)).toBe(true);
    await other.disconnect('gone');
    expect(groupAlive(status.pid!)).toBe(false);
    expect(other.status('gone')[0]!.state).toBe('disconnected');
    await other.close();
  });
});

describe('register is inert', () => {
  it('starts no process until connect', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xdog-mcp-inert-'));
    const marker = path.join(dir, `node-marker-${process.pid}`);
    fs.symlinkSync(process.execPath, marker);
    const registry = new McpRegistry();
    registry.register('inert', { command: marker, args: [EVERYTHING, 'stdio'] });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(processesMatching(marker)).toEqual([]);
    expect(registry.status('inert')[0]!.state).toBe('registered');
    await registry.connect('inert');
    expect(processesMatching(marker).length).toBeGreaterThan(0);
    await registry.close();
    expect(processesMatching(marker)).toEqual([]);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
