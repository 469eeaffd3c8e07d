/**
 * Elicitation and sampling against the real server-everything (the
 * initialize-era wire, where they arrive as server requests): headless, an
 * elicitation is declined with a reason and sampling is not even offered;
 * with the chat's TTY prompt the person fills the form line by line; with a
 * host sampling handler the server's request runs on it.
 */
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { TtyElicitation } from '../../../commands/agent/_lib/elicitation-prompt.js';
import { parseElicitationLine as parseFieldLine } from '../../../plugins/mcp/index.js';
import { McpRegistry, type McpSamplingRequest } from '../../../plugins/mcp/index.js';
import { everythingStdio } from './support.js';

function textOf(result: { content: Array<{ type: string; text?: string }> }): string {
  return result.content.map((part) => part.text ?? '').join('\n');
}

describe('elicitation and sampling with server-everything', () => {
  const registries: McpRegistry[] = [];
  afterAll(() => Promise.all(registries.map((registry) => registry.close())));
  const connected = async (registry: McpRegistry) => {
    registries.push(registry);
    registry.register('every', everythingStdio());
    await registry.connect('every');
    return registry;
  };

  it('headless: declines the elicitation with a reason, and offers no sampling', async () => {
    const registry = await connected(new McpRegistry());
    const result = await registry.callTool('every', 'trigger-elicitation-request', {});
    expect(textOf(result)).toContain('User declined to provide the requested information');
    expect(textOf(result)).toContain('no person can answer here (headless)');
    expect(registry.tools('every').map((tool) => tool.name)).not.toContain('trigger-sampling-request');
  });

  it('on a TTY: asks the form field by field and sends the checked answer', async () => {
    const input = new PassThrough();
    const shown: string[] = [];
    const prompt = new TtyElicitation({ stdout: () => undefined, stderr: (text: string) => void shown.push(text) } as never, false, input);
    const registry = await connected(new McpRegistry({ handlers: { elicit: prompt.request } }));
    const call = registry.callTool('every', 'trigger-elicitation-request', {});
    // The form is up when its first field is asked; then: a wrong integer is asked again, the rest take defaults.
    const until = async (text: string) => {
      for (let waited = 0; !shown.join('').includes(text); waited += 50) {
        if (waited > 60_000) throw new Error(`never shown: ${text}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    await until('Your full, legal name');
    input.write('Ada Lovelace\n');
    for (let field = 0; field < 5; field++) input.write('\n');
    await until('Your favorite integer');
    input.write('4.5\n');
    await until('answer a whole number');
    input.write('7\n');
    for (let field = 0; field < 10; field++) input.write('\n');
    const text = textOf(await call);
    expect(shown.join('')).toContain('MCP server "every" asks (its words, not xdog\'s)');
    expect(text).toContain('User provided the requested information');
    expect(text).toContain('- Name: Ada Lovelace');
    expect(text).toContain('- Favorite Integer: 7');
    expect(text).toContain('"untitledMultipleSelectEnum": [\n      "Guitar"\n    ]');
  });

  it('runs a sampling request on the host handler when sampling is enabled', async () => {
    const asked: McpSamplingRequest[] = [];
    const registry = await connected(new McpRegistry({ handlers: { sample: async (request) => (asked.push(request), { text: 'Paris.', model: 'faux/demo', stopReason: 'endTurn' }) } }));
    const result = await registry.callTool('every', 'trigger-sampling-request', { prompt: 'capital of France?', maxTokens: 20 });
    expect(textOf(result)).toContain('Paris.');
    expect(asked).toEqual([{ server: 'every', messages: [{ role: 'user', text: 'Resource trigger-sampling-request context: capital of France?' }], systemPrompt: 'You are a helpful test server.', maxTokens: 20 }]);
  });

  it('parses a typed field line by its type', () => {
    expect(parseFieldLine({ type: 'boolean' }, 'y')).toEqual({ value: true });
    expect(parseFieldLine({ type: 'integer', default: 42 }, '')).toEqual({ value: 42 });
    expect(parseFieldLine({ type: 'string' }, '')).toEqual({ skip: true });
    expect(parseFieldLine({ type: 'string', enum: ['a', 'b'] }, 'c', 'pick')).toEqual({ problem: '"pick" is not a valid choice (choose one of: a, b)' });
    expect(parseFieldLine({ type: 'choices', enum: ['a', 'b'] }, 'a, b')).toEqual({ value: ['a', 'b'] });
  });
});
