import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ContainerModule, createKernel, definePlugin, type Agent, type Kernel, type ToolResultMessage } from '../../../core/index.js';
import { createFauxStreamFn, type FauxResponse } from '../../../plugins/faux/index.js';
import extensionsPlugin, { ExtensionHost, ExtensionHostToken, extensionHostOf, extensionToolsOf } from '../../../plugins/extensions/index.js';
import { findExtension } from '../../../core/discovery.js';
import { modelRegistryFor } from '../../../core/model/registry.js';
import { parseConfig } from '../../../core/config.js';
import { tempProject, writeExtension } from './support.js';

const writes: string[] = [];
const writeTool = {
  name: 'write_note',
  description: 'writes a note',
  parameters: z.object({ path: z.string().max(40) }).strict(),
  async execute(args: { path: string }) {
    writes.push(args.path);
    return { content: [{ type: 'text' as const, text: `wrote ${args.path}` }] };
  },
};

/** A host gate: in-process policy that refuses paths under /etc. */
const gate = definePlugin({
  name: 'test-gate',
  hooks: {
    beforeToolCall: (context) => (String(context.args.path).startsWith('/etc') ? { block: true, reason: 'no /etc' } : undefined),
  },
});

let kernel: Kernel | undefined;
afterEach(async () => {
  await kernel?.close();
  kernel = undefined;
  writes.length = 0;
});

async function boot(project: string, ids: string[], timeoutMs = 2000): Promise<Kernel> {
  const short = new ContainerModule(({ rebind }) => {
    rebind(ExtensionHostToken).toConstantValue(
      new ExtensionHost({ ids, settings: { guard: { deny: 'secret' } }, cwd: project, locate: (id) => findExtension(id, { cwd: project }), callbackTimeoutMs: timeoutMs }),
    );
  });
  kernel = await createKernel({ plugins: [gate, extensionsPlugin], config: { extensions: ids }, cwd: project, overrides: [short] });
  await kernel.open();
  return kernel;
}

function agentOf(k: Kernel, responses: FauxResponse[]): Agent {
  return k.createAgent(createFauxStreamFn({ responses }), { model: 'faux/test' }, { tools: [writeTool] });
}

async function run(agent: Agent, text: string): Promise<void> {
  for await (const _ of agent.prompt(text)) void _;
}

function results(agent: Agent): ToolResultMessage[] {
  return agent.messages.filter((message): message is ToolResultMessage => message.role === 'toolResult');
}

const GUARD = `
export default function setup(api) {
  api.beforeToolCall(({ args }) => {
    if (String(args.path).includes(api.settings.deny)) return { block: true, reason: 'secret paths are off limits' };
    if (args.path === 'rewrite-me') return { args: { path: 'rewritten.txt' } };
    if (args.path === 'rewrite-bad') return { args: { path: '/etc/passwd' } };
    if (args.path === 'rewrite-invalid') return { args: { path: 42 } };
  });
  api.command('hello', { description: 'greets', run: (args) => 'hello ' + args, complete: (prefix) => ['world', 'there'].filter((w) => w.startsWith(prefix)) });
}`;

const textOf = (result: ToolResultMessage): string => result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');

const call = (path: string): FauxResponse => ({ toolCalls: [{ name: 'write_note', arguments: { path } }] });

describe('extensions in worker processes', () => {
  it('stays inert until the first turn, then vetoes and rewrites tool calls through the same hooks', async () => {
    const project = tempProject();
    writeExtension(project, 'guard', GUARD);
    const k = await boot(project, ['guard']);
    const host = extensionHostOf(k)!;
    expect(host.list()[0]).toMatchObject({ id: 'guard', state: 'inactive' });
    const agent = agentOf(k, [call('secret.txt'), call('rewrite-me'), call('rewrite-bad'), call('rewrite-invalid'), call('plain.txt'), { text: 'done' }]);
    await run(agent, 'go');
    expect(host.list()[0]).toMatchObject({ state: 'active', commands: ['ext-guard-hello'] });
    const texts = results(agent).map(textOf);
    expect(texts[0]).toMatch(/secret paths are off limits/);
    expect(texts[1]).toMatch(/wrote rewritten.txt/);
    // A rewrite is re-checked by the host's own gate and re-validated against the tool.
    expect(texts[2]).toMatch(/permission hook "test-gate" blocked them: no \/etc/);
    expect(texts[3]).toMatch(/rewrote the arguments, and they are invalid/);
    expect(texts[4]).toMatch(/wrote plain.txt/);
    expect(writes).toEqual(['rewritten.txt', 'plain.txt']);
    expect(await host.runCommand('/ext-guard-hello', 'you')).toBe('hello you');
    expect(await host.completeCommand('ext-guard-hello', 'w')).toEqual(['world']);
    await agent.close();
  });

  for (const [what, body] of [
    ['throws', `throw new Error('boom')`],
    ['never answers', `return new Promise(() => {})`],
    ['calls process.exit', `process.exit(3)`],
    ['answers out of contract', `return { allow: 'maybe' }`],
  ] as const) {
    it(`quarantines an extension whose beforeToolCall ${what}; its tool calls fail closed until reload`, async () => {
      const project = tempProject();
      const dir = writeExtension(project, 'flaky', `export default (api) => api.beforeToolCall(() => { ${body} });`);
      const k = await boot(project, ['flaky'], 1000);
      const host = extensionHostOf(k)!;
      const agent = agentOf(k, [call('a.txt'), call('b.txt'), { text: 'the run went on' }]);
      await run(agent, 'go');
      const [first, second] = results(agent);
      expect(textOf(first!)).toMatch(/extension "flaky" failed its pre-tool check, so the call fails closed/);
      expect(textOf(second!)).toMatch(/extension "flaky" is quarantined/);
      expect(writes).toEqual([]);
      expect(agent.messages.at(-1)).toMatchObject({ role: 'assistant', content: [{ type: 'text', text: 'the run went on' }] });
      const [info] = host.list();
      expect(info).toMatchObject({ state: 'quarantined', failClosed: true });
      // Fixed and reloaded, it works again.
      fs.writeFileSync(`${dir}/index.mjs`, `export default (api) => api.beforeToolCall(() => undefined);`);
      expect(await host.reload('flaky')).toMatchObject({ state: 'active', failClosed: false });
      const again = agentOf(k, [call('c.txt'), { text: 'ok' }]);
      await run(again, 'go');
      expect(writes).toEqual(['c.txt']);
      await Promise.all([agent.close(), again.close()]);
    });
  }

  it('refuses a 33rd command, a duplicate name and a shortcut that is not alt+KEY or is the editor\'s, in the author code, at once', async () => {
    const project = tempProject();
    writeExtension(
      project,
      'many',
      `export default (api) => {
        const problems = [];
        api.command('Hello', { run: () => 'a' });
        try { api.command('hello', { run: () => 'b' }); } catch (e) { problems.push(e.message); }
        api.command('hello', { run: () => 'replaced', replace: true, shortcut: 'alt+k' });
        try { api.command('word', { run: () => '', shortcut: 'alt+b' }); } catch (e) { problems.push(e.message); }
        try { api.command('chord', { run: () => '', shortcut: 'ctrl+k' }); } catch (e) { problems.push(e.message); }
        for (let i = 0; i < 31; i++) api.command('c' + i, { run: () => '' });
        try { api.command('one-too-many', { run: () => '' }); } catch (e) { problems.push(e.message); }
        api.status('problems', problems.join(' | '));
      };`,
    );
    const k = await boot(project, ['many']);
    const host = extensionHostOf(k)!;
    await host.activateAll();
    const [info] = host.list();
    expect(info).toMatchObject({ state: 'active' });
    expect(info!.commands).toHaveLength(32);
    expect(info!.status.problems).toMatch(/a command named "hello" is already registered .*pass replace: true.* \| .*command "word": shortcut "alt\+b" is the editor's.* \| .*command "chord": shortcut "ctrl\+k": use "alt\+" .* \| .*at most 32 command registrations/);
    expect(info!.shortcuts).toEqual({ 'alt+k': 'ext-many-hello' });
    expect(await host.runCommand('ext-many-hello', '')).toBe('replaced');
  });

  it('serves a registerProvider model, and its error event ends the turn without running its tool calls', async () => {
    const project = tempProject();
    writeExtension(
      project,
      'echo',
      `export default (api) => {
        api.registerProvider('prov', { models: [{ id: 'm1', contextWindow: 1000 }], async *stream(request) {
          const last = request.messages.at(-1);
          const text = typeof last.content === 'string' ? last.content : last.content.map((p) => p.text ?? '').join('');
          if (text === 'fail') {
            yield { type: 'tool_call', id: 't1', name: 'write_note', arguments: { path: 'never.txt' } };
            yield { type: 'error', message: 'the backend is down' };
            return;
          }
          yield { type: 'text', text: 'echo: ' + text };
          yield { type: 'usage', input: 3, output: 2 };
          yield { type: 'done' };
        } });
      };`,
    );
    const k = await boot(project, ['echo']);
    await extensionHostOf(k)!.activateAll();
    const registry = modelRegistryFor(k);
    const model = registry.resolve('ext-echo-prov/m1');
    expect(model.info).toMatchObject({ id: 'm1', contextWindow: 1000 });
    const agent = k.createAgent(registry.streamFn, { model: 'ext-echo-prov/m1' }, { tools: [writeTool] });
    const stream = agent.prompt('hi');
    for await (const _ of stream) void _;
    expect(await stream.result()).toMatchObject({ status: 'completed' });
    expect(agent.messages.at(-1)).toMatchObject({ role: 'assistant', content: [{ type: 'text', text: 'echo: hi' }] });
    const failing = agent.prompt('fail');
    for await (const _ of failing) void _;
    expect(await failing.result()).toMatchObject({ status: 'error', errorMessage: 'the backend is down' });
    expect(writes).toEqual([]);
    await agent.close();
  });

  it('enforces a provider model\'s maxPromptTokens, supportedEfforts and visionLimits before its stream callback runs (L40)', async () => {
    const project = tempProject();
    writeExtension(
      project,
      'vis',
      `export default (api) => {
        let calls = 0;
        api.registerProvider('prov', {
          models: [{ id: 'm1', contextWindow: 1000, maxPromptTokens: 500, supportedEfforts: ['low', 'high'], visionLimits: { maxPromptImages: 1, maxPromptImageSize: 64, supportedMediaTypes: ['image/png'] } }],
          async *stream() { calls++; yield { type: 'text', text: 'seen' }; yield { type: 'done' }; },
        });
        api.command('calls', { run: () => String(calls) });
        api.command('bad', { run: () => { try { api.registerProvider('over', { models: [{ id: 'x', contextWindow: 10, maxPromptTokens: 11 }], stream() { return []; } }); return 'registered'; } catch (error) { return error.message; } } });
      };`,
    );
    const k = await boot(project, ['vis']);
    const host = extensionHostOf(k)!;
    await host.activateAll();
    const registry = modelRegistryFor(k);
    expect(registry.resolve('ext-vis-prov/m1').info).toMatchObject({ maxPromptTokens: 500, reasoningEfforts: ['low', 'high'], input: ['text', 'image'], images: { maxCount: 1, maxBytes: 64, mimeTypes: ['image/png'] } });
    const png = (bytes: number) => ({ type: 'image' as const, mimeType: 'image/png', data: Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(bytes - 8, 1)]).toString('base64') });
    const ask = async (content: Array<{ type: 'text'; text: string } | { type: 'image'; mimeType: string; data: string }>, thinking?: string) => {
      const agent = k.createAgent(registry.streamFn, { model: 'ext-vis-prov/m1', ...(thinking && { thinking }) });
      try {
        const stream = agent.prompt({ role: 'user', content, timestamp: Date.now() });
        for await (const _ of stream) void _;
        const result = (await stream.result()) as { status: string; errorMessage?: string };
        return result.status === 'completed' ? 'completed' : String(result.errorMessage);
      } catch (error) {
        // Image admission refuses the request before any model call: the run fails with IMAGE_REJECTED.
        return String((error as Error).message);
      } finally {
        await agent.close();
      }
    };
    const text = { type: 'text' as const, text: 'look' };
    expect(await ask([text, png(32), png(32)])).toMatch(/holds 2 images but the model accepts at most 1/);
    expect(await ask([text, png(100)])).toMatch(/an image of 100 bytes; the model accepts at most 64 per image/);
    expect(await ask([text, { ...png(32), mimeType: 'image/jpeg' }])).toMatch(/image\/jpeg image; accepted types are image\/png/);
    expect(await ask([text], 'medium')).toMatch(/takes the reasoning efforts low, high, not "medium"/);
    // None of those reached the extension; a request within the limits does.
    expect(await host.runCommand('/ext-vis-calls', '')).toBe('0');
    expect(await ask([text, png(32)], 'high')).toBe('completed');
    expect(await host.runCommand('/ext-vis-calls', '')).toBe('1');
    // A prompt ceiling over the context window is refused in the author's code.
    expect(await host.runCommand('/ext-vis-bad', '')).toMatch(/maxPromptTokens is at most the contextWindow/);
    expect(host.list()[0]).toMatchObject({ state: 'active' });
  });

  it('answers dialogs without a UI at once, and inspection with real data or "unavailable"', async () => {
    const project = tempProject();
    writeExtension(
      project,
      'probe',
      `export default (api) => {
        api.command('probe', { run: async () => JSON.stringify({
          select: await api.select('pick', ['a', 'b'], { timeoutSeconds: 600 }) ?? null,
          input: await api.input('name?') ?? null,
          confirm: await api.confirm('sure?'),
          model: await api.getModel(),
          session: await api.getSessionName(),
          tools: await api.getActiveTools(),
          entry: await api.appendEntry('note', { a: 1 }).then(() => 'stored', (e) => e.message),
        }) });
        api.command('bad', { run: () => api.confirm('x', { timeoutSeconds: 601 }).then(String, (e) => e.message) });
      };`,
    );
    const k = await boot(project, ['probe']);
    const host = extensionHostOf(k)!;
    const agent = agentOf(k, [{ text: 'ok' }]);
    await run(agent, 'hi');
    const answer = JSON.parse(await host.runCommand('ext-probe-probe', ''));
    expect(answer).toMatchObject({ select: null, input: null, confirm: false, model: { id: 'test', provider: 'faux' }, session: 'unavailable', tools: ['write_note'] });
    expect(answer.entry).toMatch(/unavailable here: durable entries need a session store/);
    expect(await host.runCommand('ext-probe-bad', '')).toMatch(/a dialog timeout is 0.1-600 seconds, not 601/);
    await agent.close();
  });

  it('transforms inputs, rewrites a copy of the context, and replaces tool results', async () => {
    const project = tempProject();
    writeExtension(
      project,
      'shaper',
      `export default (api) => {
        api.onInput(({ text }) => text === 'bad' ? { action: 'reject', reason: 'no bad words' } : text === 'shout' ? { action: 'transform', text: 'SHOUT' } : undefined);
        api.context((messages) => messages.map((m) => m.role === 'user' ? { ...m, content: '[seen] ' + (typeof m.content === 'string' ? m.content : '') } : m));
        api.afterToolCall(({ content }) => ({ content: [{ type: 'text', text: 'redacted (' + content.length + ' part)' }] }));
      };`,
    );
    const k = await boot(project, ['shaper']);
    const model = createFauxStreamFn({ responses: [call('x.txt'), { text: 'done' }] });
    const agent = k.createAgent(model, { model: 'faux/test' }, { tools: [writeTool] });
    const rejected = agent.prompt('bad');
    for await (const _ of rejected) void _;
    expect(await rejected.result()).toMatchObject({ status: 'rejected' });
    await run(agent, 'shout');
    // The transcript keeps the admitted (transformed) input; only the model's copy was rewritten.
    expect(agent.messages[0]).toMatchObject({ role: 'user', content: 'SHOUT' });
    expect(model.requests[0]!.messages[0]).toMatchObject({ role: 'user', content: '[seen] SHOUT' });
    expect(textOf(results(agent)[0]!)).toBe('redacted (1 part)');
    expect(writes).toEqual(['x.txt']);
    await agent.close();
  });
});

describe('status and lifecycle events', () => {
  it('refuses a 33rd status key in the author code, and quarantines a worker that sends one anyway', async () => {
    const project = tempProject();
    writeExtension(
      project,
      'statusy',
      `import fs from 'node:fs';
      export default (api) => {
        for (let i = 0; i < 32; i++) api.status('k' + i, 'v' + i);
        let refused = '';
        try { api.status('k32', 'one too many'); } catch (e) { refused = e.message; }
        api.status('k0', refused);
        api.status('k1', undefined);
        api.status('k1', 'a cleared key may be set again');
        api.command('bypass', { run: () => {
          api.status('k2', undefined);
          // Around the API: a raw frame that sets a 33rd key.
          fs.writeSync(3, JSON.stringify({ jsonrpc: '2.0', method: 'status', params: { key: 'k2', text: 'x' } }) + '\\n');
          fs.writeSync(3, JSON.stringify({ jsonrpc: '2.0', method: 'status', params: { key: 'extra', text: 'x' } }) + '\\n');
          return 'sent';
        } });
      };`,
    );
    const k = await boot(project, ['statusy']);
    const host = extensionHostOf(k)!;
    await host.activateAll();
    const [info] = host.list();
    expect(Object.keys(info!.status)).toHaveLength(32);
    expect(info!.status.k0).toMatch(/at most 32 status keys at once/);
    expect(info!.status.k1).toBe('a cleared key may be set again');
    expect(host.list()[0]!.state).toBe('active');
    await host.runCommand('ext-statusy-bypass', '').catch(() => undefined);
    await expect.poll(() => host.list()[0]!.state).toBe('quarantined');
    expect(host.list()[0]!.reason).toBe('it set more than 32 status keys');
  });

  it('calls on(event) callbacks for agent_start, each turn_start and turn_end, and agent_end, in that order', async () => {
    const project = tempProject();
    writeExtension(
      project,
      'watcher',
      `export default (api) => {
        const seen = [];
        for (const event of ['agent_start', 'turn_start', 'turn_end', 'agent_end']) api.on(event, (info) => { seen.push(info.turn ? info.event + ':' + info.turn : info.event); });
        let problem = '';
        try { api.on('tool_start', () => {}); } catch (e) { problem = e.message; }
        api.command('seen', { run: () => JSON.stringify({ seen, problem }) });
      };`,
    );
    const k = await boot(project, ['watcher']);
    const host = extensionHostOf(k)!;
    await host.activateAll();
    const agent = agentOf(k, [call('a.txt'), { text: 'done' }]);
    await run(agent, 'go');
    const { seen, problem } = JSON.parse(await host.runCommand('ext-watcher-seen', ''));
    expect(seen).toEqual(['agent_start', 'turn_start:1', 'turn_end:1', 'turn_start:2', 'turn_end:2', 'agent_end']);
    expect(problem).toMatch(/no lifecycle event "tool_start"/);
    await agent.close();
  });
});

describe('the callback deadline', () => {
  it('is extension_timeout_ms from the config, bounded by the limits', async () => {
    expect(() => parseConfig('extension_timeout_ms: 50\n')).toThrow(/extension_timeout_ms/);
    expect(() => parseConfig('extension_timeout_ms: 600001\n')).toThrow(/extension_timeout_ms/);
    const project = tempProject();
    writeExtension(project, 'slow', `export default (api) => api.beforeToolCall(() => new Promise((resolve) => setTimeout(resolve, 800)));`);
    for (const [timeout, outcome] of [[300, /did not answer within 300 ms/], [5000, /wrote a\.txt/]] as const) {
      const k = await createKernel({ plugins: [extensionsPlugin], config: parseConfig(`extensions: [slow]\nextension_timeout_ms: ${timeout}\n`), cwd: project });
      await k.open();
      try {
        const agent = agentOf(k, [call('a.txt'), { text: 'ok' }]);
        await run(agent, 'go');
        expect(textOf(results(agent)[0]!)).toMatch(outcome);
        await agent.close();
      } finally {
        await k.close();
      }
    }
  });
});

describe('extension tools', () => {
  it('are blocked until their ext_ alias is listed in extension_allow_tools', async () => {
    const project = tempProject();
    writeExtension(project, 'tooly', `export default (api) => api.tool({ name: 'shout', description: 'shouts', parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }, execute: ({ text }) => text.toUpperCase() });`);
    for (const allow of [[], ['ext_shout']]) {
      const k = await createKernel({ plugins: [extensionsPlugin], config: { extensions: ['tooly'], extension_allow_tools: allow }, cwd: project });
      await k.open();
      try {
        await extensionHostOf(k)!.activateAll();
        const tools = extensionToolsOf(k);
        expect(tools.map((tool) => tool.name)).toEqual(['ext_shout']);
        const agent = k.createAgent(createFauxStreamFn({ responses: [{ toolCalls: [{ name: 'ext_shout', arguments: { text: 'hi' } }] }, { text: 'ok' }] }), { model: 'faux/test' }, { tools });
        await run(agent, 'go');
        const text = textOf(results(agent)[0]!);
        if (allow.length) expect(text).toBe('HI');
        else expect(text).toMatch(/extension tool ext_shout is blocked: add it to extension_allow_tools/);
        await agent.close();
      } finally {
        await k.close();
      }
    }
  });
});
