import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../../core/index.js';
import { compileSchema, toolAlias } from '../../../plugins/mcp/index.js';
import { parseBlock } from '../../../plugins/mcp/content.js';
import { BoundedTail } from '../../../core/index.js';
import { stderrText } from '../../../plugins/mcp/stdio-transport.js';
import { boundedStream, clampRetry } from '../../../plugins/mcp/http-transport.js';
import { canonicalJson, toAgentResult } from '../../../plugins/mcp/tool-result.js';

const convert = (raw: Record<string, unknown>) => toAgentResult(raw, { server: 's', tool: 't' });

describe('MCP content validation', () => {
  it('rejects malformed base64, oversized binaries and unsafe URIs instead of dropping them', () => {
    expect(() => parseBlock({ type: 'image', data: 'not base64!', mimeType: 'image/png' }, 'x')).toThrow(/not valid base64/);
    const big = 'A'.repeat(Math.ceil((LIMITS.mcpBlockDecodedBytes + 3) / 3) * 4);
    expect(() => parseBlock({ type: 'audio', data: big, mimeType: 'audio/wav' }, 'x')).toThrow(/over the 4194304-byte limit per block/);
    expect(() => parseBlock({ type: 'resource_link', uri: 'has space', name: 'n' }, 'x')).toThrow(/whitespace or control/);
    expect(() => parseBlock({ type: 'resource', resource: { uri: 'file:///a', text: 'x', blob: 'AAAA' } }, 'x')).toThrow(/exactly one of text and blob/);
    expect(() => parseBlock({ type: 'video', data: '' }, 'x')).toThrow(/unsupported content type "video"/);
    expect(() => parseBlock({ type: 'text', text: 'x', annotations: { priority: 3 } }, 'x')).toThrow(/priority must be a number from 0 to 1/);
  });

  it('keeps empty binaries binary', () => {
    const block = parseBlock({ type: 'image', data: '', mimeType: 'image/png' }, 'x');
    expect(block).toMatchObject({ contentType: 'image', isBinary: true, bytes: 0 });
    // An empty image is not shown to a model as an image.
    expect(convert({ content: [{ type: 'image', data: '', mimeType: 'image/png' }] }).content[0]!.type).toBe('text');
  });

  it('does not add a structured block when a text block already holds the same JSON', () => {
    const result = convert({ content: [{ type: 'text', text: '{ "b": 1, "a": [2] }' }], structuredContent: { a: [2], b: 1 } });
    expect(result.content).toHaveLength(1);
    expect(canonicalJson({ b: 1, a: { d: 1, c: 2 } })).toBe('{"a":{"c":2,"d":1},"b":1}');
  });

  it('treats a missing content array and a non-boolean isError as server faults', () => {
    expect(() => convert({})).toThrow(/without a content array/);
    expect(() => convert({ content: [], isError: 'yes' })).toThrow(/non-boolean isError/);
  });

  it('shows non-model image types as a labelled line with typed data kept', () => {
    const result = convert({ content: [{ type: 'image', data: 'R0lGODlh', mimeType: 'image/gif' }] });
    expect(result.content[0]).toEqual({ type: 'text', text: '[MCP image: image/gif, 6 bytes; kept as data, not shown to the model]' });
    expect(result.details!.blocks[0]!.data).toBe('R0lGODlh');
  });
});

describe('schemas and aliases', () => {
  it('names how many violations it did not list', () => {
    const required = Array.from({ length: 11 }, (_, index) => `p${index}`);
    const schema = compileSchema({ type: 'object', required }, 'inputSchema');
    expect(() => schema.check({}, 'arguments of t')).toThrow(/p7'.*; and 3 more problems$/);
  });

  it('compiles each declared dialect and rejects unknown ones', () => {
    for (const [$schema, dialect] of [
      [undefined, '2020-12'],
      ['https://json-schema.org/draft/2019-09/schema', '2019-09'],
      ['http://json-schema.org/draft-07/schema#', 'draft-07'],
      ['http://json-schema.org/draft-06/schema#', 'draft-06'],
      ['http://json-schema.org/draft-04/schema#', 'draft-04'],
    ] as const) {
      expect(compileSchema({ ...($schema ? { $schema } : {}), type: 'object' }, 's').dialect).toBe(dialect);
    }
    expect(() => compileSchema({ $schema: 'http://example.test/x', type: 'object' }, 's')).toThrow(/unsupported JSON Schema dialect/);
  });

  it('resolves local refs and refuses external ones', () => {
    const local = compileSchema({ type: 'object', $defs: { n: { type: 'number' } }, properties: { x: { $ref: '#/$defs/n' } } }, 's');
    expect(() => local.check({ x: 'no' }, 'args')).toThrow(/\/x must be number/);
    expect(() => compileSchema({ type: 'object', properties: { x: { $ref: 'other.json' } } }, 's')).toThrow(/outside the advertised document/);
  });

  it('says a $ref into the document that resolves to nothing is dangling, not external', () => {
    expect(() => compileSchema({ type: 'object', properties: { x: { $ref: '#/$defs/missing' } } }, 'tool "t" input schema')).toThrow(
      'tool "t" input schema has a $ref that points to nothing in the document (#/$defs/missing)',
    );
    const withId = { $id: 'https://example.test/s.json', type: 'object', properties: { x: { $ref: '#/$defs/missing' } } };
    expect(() => compileSchema(withId, 's')).toThrow('s has a $ref that points to nothing in the document (https://example.test/s.json#/$defs/missing)');
    const external = { $id: 'https://example.test/s.json', type: 'object', properties: { x: { $ref: 'other.json#/a' } } };
    expect(() => compileSchema(external, 's')).toThrow(/outside the advertised document \(https:\/\/example\.test\/other\.json#\/a\); external schemas are never fetched/);
  });

  it('makes stable aliases within 64 characters', () => {
    expect(toolAlias('files', 'read_file')).toBe('files__read_file');
    const long = toolAlias('srv', 'x'.repeat(100));
    expect(long.length).toBeLessThanOrEqual(64);
    expect(long).toBe(toolAlias('srv', 'x'.repeat(100)));
    expect(toolAlias('srv', 'a.b')).not.toBe(toolAlias('srv', 'a/b'));
  });
});

describe('BoundedTail', () => {
  it('keeps only the newest bytes and says how many it dropped', () => {
    const tail = new BoundedTail(8);
    tail.push(Buffer.from('0123456789'));
    tail.push(Buffer.from('ab'));
    expect(stderrText(tail)).toBe('[4 earlier bytes of stderr discarded]\n456789ab');
    expect(tail.droppedBytes).toBe(4);
  });
});

describe('HTTP body bounds', () => {
  async function pump(sse: boolean, chunks: string[]): Promise<string> {
    const source = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
        controller.close();
      },
    });
    return new Response(source.pipeThrough(boundedStream(10, 'test', sse))).text();
  }

  it('bounds an SSE stream per event, not in total', async () => {
    const events = Array.from({ length: 5 }, (_, i) => `data: ${i}\r\n\r\n`);
    await expect(pump(true, events)).resolves.toBe(events.join(''));
    await expect(pump(true, ['data: 0123456789\n\n'])).rejects.toThrow(/event from test is over the 10-byte message limit/);
  });

  it('bounds a JSON body as a whole', async () => {
    await expect(pump(false, ['{"a":', '"0123456"}'])).rejects.toThrow(/response from test is over the 10-byte/);
    await expect(pump(false, ['{"a":1}'])).resolves.toBe('{"a":1}');
  });
});

describe('SSE retry bounds', () => {
  async function through(chunks: string[]): Promise<string> {
    const source = new ReadableStream<string>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
        controller.close();
      },
    });
    return new Response(source.pipeThrough(clampRetry()).pipeThrough(new TextEncoderStream())).text();
  }

  it('clamps a server retry field to 50 ms - 5 s and leaves other lines alone', async () => {
    expect(await through(['id: 1\nretry: 3600', '000\ndata: {}\n\n'])).toBe('id: 1\nretry: 5000\ndata: {}\n\n');
    expect(await through(['retry: 1\r\n\r\n'])).toBe('retry: 50\r\n\r\n');
    expect(await through(['retry: 500\n', 'data: retry: 9\n\n'])).toBe('retry: 500\ndata: retry: 9\n\n');
  });
});
