/** Chunked, checksummed payloads over the extension channel (E15), extensions tapping compaction (G20), and the read-only inspection APIs (L41). */
import { createHash } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ContainerModule, createKernel, type Agent, type Kernel, type UserMessage } from '../../../core/index.js';
import { findExtension } from '../../../core/discovery.js';
import { LIMITS } from '../../../core/limits.js';
import { createFauxStreamFn, type FauxResponse } from '../../../plugins/faux/index.js';
import extensionsPlugin, { ExtensionHost, ExtensionHostToken } from '../../../plugins/extensions/index.js';
import { Channel } from '../../../plugins/extensions/channel.js';
import { TRANSFER_KEY, TransferInbox, packPayload } from '../../../plugins/extensions/transfer.js';
import { tempProject, writeExtension } from './support.js';

let kernel: Kernel | undefined;
afterEach(async () => {
  await kernel?.close();
  kernel = undefined;
});

async function boot(project: string, ids: string[]): Promise<{ kernel: Kernel; host: ExtensionHost }> {
  const host = new ExtensionHost({ ids, settings: {}, cwd: project, locate: (id) => findExtension(id, { cwd: project }), callbackTimeoutMs: 20_000 });
  const module = new ContainerModule(({ rebind }) => {
    rebind(ExtensionHostToken).toConstantValue(host);
  });
  kernel = await createKernel({ plugins: [extensionsPlugin], config: { extensions: ids }, cwd: project, overrides: [module] });
  await kernel.open();
  return { kernel, host };
}

const sha = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

describe('chunked context transfer', () => {
  it('hands a context far over one frame (a 12 MiB image) to the extension and back, byte for byte', async () => {
    const project = tempProject();
    writeExtension(
      project,
      'big-context',
      `import { createHash } from 'node:crypto';
      export default (api) => {
        api.context((messages) => {
          const image = messages[0].content.find((part) => part.type === 'image');
          const digest = createHash('sha256').update(image.data).digest('hex');
          return [{ ...messages[0], content: [...messages[0].content, { type: 'text', text: 'seen image ' + digest }] }, ...messages.slice(1)];
        });
      };`,
    );
    const { kernel: k, host } = await boot(project, ['big-context']);
    // A PNG signature, then noise: 12 MiB of bytes is 16 MiB of base64, twice the 8 MiB frame.
    const bytes = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(12 * 1024 * 1024, 7)]);
    const data = bytes.toString('base64');
    expect(data.length).toBeGreaterThan(LIMITS.extensionFrameBytes);
    const model = createFauxStreamFn({ responses: [{ text: 'ok' }] as FauxResponse[] });
    const agent: Agent = k.createAgent(model, { model: 'faux/test' });
    const input: UserMessage = { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image', data, mimeType: 'image/png' }], timestamp: Date.now() };
    const stream = agent.prompt(input);
    for await (const _ of stream) void _;
    expect(await stream.result()).toMatchObject({ status: 'completed' });
    expect(host.list()[0]).toMatchObject({ state: 'active' });
    const sent = model.requests[0]!.messages[0] as UserMessage;
    const parts = sent.content as Array<{ type: string; text?: string; data?: string }>;
    expect(parts.find((part) => part.type === 'image')!.data!.length).toBe(data.length);
    expect(sha(parts.find((part) => part.type === 'image')!.data!)).toBe(sha(data));
    expect(parts.at(-1)).toEqual({ type: 'text', text: `seen image ${sha(data)}` });
    // The transcript itself is untouched.
    expect((agent.messages[0] as UserMessage).content).toHaveLength(2);
    await agent.close();
  }, 120_000);
});

/** Two channels wired back to back in memory: what one side writes, the other reads. */
function channelPair(): { a: Channel; b: Channel; broken: string[] } {
  const ab = new PassThrough();
  const ba = new PassThrough();
  const broken: string[] = [];
  return { a: new Channel(ba, ab, (reason) => broken.push(`a: ${reason}`)), b: new Channel(ab, ba, (reason) => broken.push(`b: ${reason}`)), broken };
}

describe('transfer blocks', () => {
  it('refuses a payload over 128 MiB before sending a block, and a payload whose checksum does not match', async () => {
    const { a, b } = channelPair();
    const inbox = new TransferInbox(b.peer);
    let blocks = 0;
    b.peer.addMethod('count', () => ++blocks);
    await expect(packPayload(a.peer, 'x'.repeat(LIMITS.extensionTransferBytes), 'the context')).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED', message: expect.stringMatching(/over the 134217728-byte limit/) });

    const value = { text: 'y'.repeat(200 * 1024) };
    const ref = (await packPayload(a.peer, value, 'the context')) as Record<string, { id: string; sha256: string; blocks: number }>;
    expect(ref[TRANSFER_KEY]!.blocks).toBe(4);
    const tampered = { [TRANSFER_KEY]: { ...ref[TRANSFER_KEY], sha256: sha('other') } };
    expect(() => inbox.unpack(tampered)).toThrow(/failed its SHA-256 check/);
    // A reference is used once: after the failed check it is gone.
    expect(() => inbox.unpack(ref)).toThrow(/is unknown/);

    const again = await packPayload(a.peer, value, 'the context');
    expect(inbox.unpack(again)).toEqual(value);
    // Blocks out of order are refused, and the transfer dropped.
    await a.peer.request('transferBlock', { id: 't1', index: 0, blocks: 3, data: Buffer.alloc(LIMITS.extensionTransferBlockBytes).toString('base64') });
    await expect(a.peer.request('transferBlock', { id: 't1', index: 2, blocks: 3, data: 'AA==' })).rejects.toThrow(/got block 2 of 3, expected 1 of 3/);
    await expect(a.peer.request('transferBlock', { id: 't1', index: 1, blocks: 3, data: Buffer.alloc(LIMITS.extensionTransferBlockBytes).toString('base64') })).rejects.toThrow(/unknown transfer t1/);
    expect(blocks).toBe(0);
    inbox.close();
  });
});

const COMPACTOR = `
export default (api) => {
  api.on('session_before_compact', (prep) => {
    if (prep.instructions === 'veto') return { cancel: true, reason: 'not now' };
    if (prep.instructions === 'mine') return { summary: 'EXT SUMMARY of ' + prep.firstKeptIndex + '/' + prep.originalCount + ' ' + prep.messages[0].content, details: { by: 'ext' } };
  });
  api.on('session_compact', (done) => api.status('last', done.summary + ' ' + done.before + '->' + done.after + ' ' + JSON.stringify(done.details)));
};`;

const long = (label: string) => `${label} ${'lorem ipsum '.repeat(40)}`;

async function withHistory(k: Kernel, extra: FauxResponse[]): Promise<{ agent: Agent; model: ReturnType<typeof createFauxStreamFn> }> {
  const model = createFauxStreamFn({ responses: [{ text: long('one') }, { text: long('two') }, { text: long('three') }, ...extra] });
  const agent = k.createAgent(model, { model: 'faux/test' }, { compaction: { keepRecentTokens: 50 } });
  for (const prompt of [long('first'), long('second'), long('third')]) await agent.prompt(prompt).result();
  return { agent, model };
}

describe('extensions tap compaction', () => {
  it('vetoes, supplies the one summary, and observes the commit', async () => {
    const project = tempProject();
    writeExtension(project, 'compactor', COMPACTOR);
    const { kernel: k, host } = await boot(project, ['compactor']);
    const { agent, model } = await withHistory(k, []);
    const before = agent.messages;
    await expect(agent.compact('veto')).resolves.toMatchObject({ compacted: false });
    expect(agent.messages).toEqual(before);

    const result = await agent.compact('mine');
    expect(result).toMatchObject({ compacted: true, custom: true });
    if (!result.compacted) throw new Error('not compacted');
    expect(result.summary).toBe(`EXT SUMMARY of ${result.firstKeptIndex}/${before.length} ${long('first')}`);
    // The extension's summary replaced the model's: no summary request was made.
    expect(model.requests).toHaveLength(3);
    expect(host.list()[0]!.status.last).toBe(`${result.summary} ${before.length}->${agent.messages.length} {"by":"ext"}`);
    await agent.close();
  }, 60_000);

  it('fails closed when two extensions both supply a summary', async () => {
    const project = tempProject();
    writeExtension(project, 'compactor', COMPACTOR);
    writeExtension(project, 'compactor-two', `export default (api) => { api.on('session_before_compact', () => ({ summary: 'TWO' })); };`);
    const { kernel: k } = await boot(project, ['compactor', 'compactor-two']);
    const { agent } = await withHistory(k, [{ text: 'model summary' }]);
    const before = agent.messages;
    await expect(agent.compact('mine')).rejects.toThrow(/extensions "compactor" and "compactor-two" both supplied a compaction summary; only one may/);
    expect(agent.messages).toEqual(before);
    await agent.close();
  }, 60_000);
});

describe('read-only inspection', () => {
  it('answers the tool inventory, the command catalog, pending input and, without a store, entries as unavailable', async () => {
    const project = tempProject();
    writeExtension(
      project,
      'inspector',
      `export default (api) => {
        api.command('peek', { description: 'looks around', run: async () => JSON.stringify({
          tools: await api.getToolInventory(), commands: await api.getCommandCatalog(), pending: await api.hasPendingMessages(), entries: await api.getEntries(),
        }) });
      };`,
    );
    const { kernel: k, host } = await boot(project, ['inspector']);
    const tool = { name: 'note', description: 'takes a note', parameters: z.object({}).strict(), execute: async () => ({ content: [{ type: 'text' as const, text: 'ok' }] }) };
    const agent = k.createAgent(createFauxStreamFn({ responses: [{ text: 'ok' }] }), { model: 'faux/test' }, { tools: [tool] });
    agent.steer('later');
    const seen = JSON.parse(await host.runCommand('/ext-inspector-peek', ''));
    expect(seen).toEqual({
      tools: [{ name: 'note', description: 'takes a note', active: true }],
      commands: [{ command: '/ext-inspector-peek', extension: 'inspector', description: 'looks around', completes: false }],
      pending: true,
      entries: 'unavailable',
    });
    await agent.close();
  }, 60_000);
});
