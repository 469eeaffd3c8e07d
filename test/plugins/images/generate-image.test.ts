import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ContainerModule, z, CredentialStoreToken, LIMITS, ToolContribution, createKernel, type AgentTool, type XdogConfig } from '../../../core/index.js';
import imagesPlugin from '../../../plugins/images/index.js';
import openaiPlugin from '../../../plugins/providers-openai/index.js';
import { TINY_PNG, startImagesStandIn, type ImagesReply, type ImagesStandIn } from '../../support/images-standin.js';
import { tempDir } from '../../support/temp.js';
import { noStore } from '../providers-shared/vendor-server.js';

const KEY = 'sk-test-images-key-456';
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46]);
const WEBP = Buffer.concat([Buffer.from('RIFF'), Buffer.from([0x10, 0, 0, 0]), Buffer.from('WEBPVP8 ')]);

let standIn: ImagesStandIn | undefined;
afterEach(async () => {
  await standIn?.close();
  standIn = undefined;
  delete process.env.XDOG_TEST_IMAGES_KEY;
});

interface Setup {
  tool: AgentTool;
  schema: z.ZodType;
  workspace: string;
  run(args: Record<string, unknown>, signal?: AbortSignal): Promise<{ text: string; isError: boolean; paths: string[] }>;
}

async function setup(replies: ImagesReply[], claw: XdogConfig['claw'] = { image_model: 'openai/gpt-image-1' }, extra: Partial<XdogConfig> = {}): Promise<Setup> {
  standIn = await startImagesStandIn(replies);
  process.env.XDOG_TEST_IMAGES_KEY = KEY;
  const workspace = tempDir('xdog-images-');
  const config: XdogConfig = { providers: { openai: { api_key_env: 'XDOG_TEST_IMAGES_KEY', base_url: `${standIn.url}/v1` } }, claw, ...extra };
  const noCredentials = new ContainerModule(({ bind }) => void bind(CredentialStoreToken).toConstantValue(noStore));
  const kernel = await createKernel({ plugins: [openaiPlugin, imagesPlugin], config, cwd: workspace, overrides: [noCredentials] });
  const tool = kernel.getAll(ToolContribution).find((candidate) => candidate.name === 'generate_image')!;
  expect(tool).toBeDefined();
  const schema = tool.parameters as z.ZodType;
  return {
    tool,
    schema,
    workspace,
    async run(args, signal = new AbortController().signal) {
      const result = await tool.execute(schema.parse(args), { toolCallId: 'c1', signal, onUpdate: () => {}, toolCtx: {} });
      const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
      return { text, isError: result.isError === true, paths: (result.details as { paths?: string[] } | undefined)?.paths ?? [] };
    },
  };
}

function savedFiles(workspace: string): string[] {
  const dir = path.join(workspace, 'generated-images');
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
}

describe('generate_image against a local OpenAI Images stand-in', () => {
  it('generates with the configured model and saves new private files under unique names', async () => {
    const { run, workspace } = await setup([{ images: [TINY_PNG] }]);
    const first = await run({ prompt: 'a red fox in snow', aspect_ratio: '9:16' });
    expect(first.isError).toBe(false);
    expect(first.paths).toHaveLength(1);
    const file = first.paths[0]!;
    expect(path.isAbsolute(file)).toBe(true);
    expect(path.dirname(file)).toBe(path.join(fs.realpathSync(workspace), 'generated-images'));
    expect(file).toMatch(/\.png$/);
    expect(fs.readFileSync(file)).toEqual(TINY_PNG);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(standIn!.requests[0]).toMatchObject({
      url: '/v1/images/generations',
      authorization: `Bearer ${KEY}`,
      fields: { model: 'gpt-image-1', prompt: 'a red fox in snow', size: '1024x1536', n: 1 },
    });

    // Named nothing, a request gets the seed's defaults: portrait 9:16 at 1K.
    const second = await run({ prompt: 'a red fox in snow' });
    expect(standIn!.requests[1]).toMatchObject({ fields: { size: '1024x1536' } });
    expect(second.paths[0]).not.toBe(file);
    expect(savedFiles(workspace)).toHaveLength(2);
    expect(fs.readFileSync(file)).toEqual(TINY_PNG);
  });

  it('sends references as an edit, with their sniffed types, whatever their names say', async () => {
    const { run, workspace } = await setup([{ images: [TINY_PNG] }]);
    fs.writeFileSync(path.join(workspace, 'photo.png'), JPEG);
    fs.mkdirSync(path.join(workspace, 'refs'));
    fs.writeFileSync(path.join(workspace, 'refs', 'style'), WEBP);
    const result = await run({ prompt: 'combine them', references: ['photo.png', 'refs/style'] });
    expect(result.isError).toBe(false);
    const request = standIn!.requests[0]!;
    expect(request.url).toBe('/v1/images/edits');
    expect(request.fields).toMatchObject({ model: 'gpt-image-1', prompt: 'combine them' });
    expect(request.files.map((file) => [file.type, file.bytes])).toEqual([
      ['image/jpeg', JPEG.length],
      ['image/webp', WEBP.length],
    ]);
  });

  it('refuses references outside the workspace, through links, that are not images, or too many, before any request', async () => {
    const { run, schema, workspace } = await setup([{ images: [TINY_PNG] }]);
    const outside = tempDir('xdog-images-outside-');
    fs.writeFileSync(path.join(outside, 'secret.png'), TINY_PNG);
    fs.symlinkSync(path.join(outside, 'secret.png'), path.join(workspace, 'link.png'));
    fs.writeFileSync(path.join(workspace, 'notes.png'), 'not an image');
    fs.writeFileSync(path.join(workspace, 'ok.png'), TINY_PNG);

    expect((await run({ prompt: 'x', references: [path.join(outside, 'secret.png')] })).text).toMatch(/outside the workspace/);
    expect((await run({ prompt: 'x', references: ['../' + path.basename(outside) + '/secret.png'] })).text).toMatch(/outside the workspace/);
    expect((await run({ prompt: 'x', references: ['link.png'] })).text).toMatch(/outside the workspace/);
    expect((await run({ prompt: 'x', references: ['notes.png'] })).text).toMatch(/not a PNG, JPEG or WebP/);
    expect((await run({ prompt: 'x', references: ['missing.png'] })).text).toMatch(/does not exist/);
    expect(() => schema.parse({ prompt: 'x', references: Array.from({ length: LIMITS.imageReferences + 1 }, () => 'ok.png') })).toThrow();
    expect(standIn!.requests).toHaveLength(0);
    expect(savedFiles(workspace)).toEqual([]);
  });

  it('refuses a reference over the size limit without reading it whole', async () => {
    const { run, workspace } = await setup([{ images: [TINY_PNG] }]);
    const big = path.join(workspace, 'big.png');
    fs.writeFileSync(big, TINY_PNG);
    fs.truncateSync(big, LIMITS.imageReferenceBytes + 1);
    const result = await run({ prompt: 'x', references: ['big.png'] });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/over the limit/);
    expect(standIn!.requests).toHaveLength(0);
  });

  it('uses only claw.image_model and re-checks that it generates images', async () => {
    const chat = await setup([{ images: [TINY_PNG] }], { image_model: 'openai/gpt-4.1' });
    const refused = await chat.run({ prompt: 'x' });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/does not generate images/);
    expect(standIn!.requests).toHaveLength(0);
    expect(Object.keys((chat.schema as z.ZodObject).shape)).not.toContain('model');
    await standIn!.close();

    // A config entry may take image output away from a catalog model: the tool refuses, it does not fall back.
    const demoted = await setup([{ images: [TINY_PNG] }], { image_model: 'openai/gpt-image-1' }, { models: [{ id: 'openai/gpt-image-1', output: ['text'] }] });
    expect((await demoted.run({ prompt: 'x' })).text).toMatch(/does not generate images/);
    expect(standIn!.requests).toHaveLength(0);
  });

  it('offers no tool when no image model is configured', async () => {
    standIn = await startImagesStandIn([]);
    const kernel = await createKernel({ plugins: [openaiPlugin, imagesPlugin], config: {}, cwd: tempDir() });
    expect(kernel.getAll(ToolContribution).map((tool) => tool.name)).not.toContain('generate_image');
  });

  it('reports a provider error as a tool error, once, with the key redacted and nothing saved', async () => {
    const { run, workspace } = await setup([{ status: 500, message: `upstream broke for ${KEY}` }]);
    const result = await run({ prompt: 'x' });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/upstream broke/);
    expect(result.text).not.toContain(KEY);
    expect(standIn!.requests).toHaveLength(1);
    expect(fs.existsSync(path.join(workspace, 'generated-images'))).toBe(false);
  });

  it('saves nothing when the answer has too many images or something that is not an image', async () => {
    const many = await setup([{ images: Array.from({ length: LIMITS.imagesPerGeneration + 1 }, () => TINY_PNG) }]);
    expect((await many.run({ prompt: 'x' })).text).toMatch(/over the limit of 4/);
    expect(savedFiles(many.workspace)).toEqual([]);
    await standIn!.close();

    const junk = await setup([{ images: [Buffer.from('<html>nope</html>')] }]);
    expect((await junk.run({ prompt: 'x' })).text).toMatch(/not a PNG, JPEG or WebP/);
    expect(savedFiles(junk.workspace)).toEqual([]);
  });

  it('refuses an answer over the response limit while reading it, and one over 32 MiB of images; nothing is cut to fit', async () => {
    // Base64 of this image is over the 44 MiB response limit: the read stops there.
    const huge = Buffer.concat([TINY_PNG, Buffer.alloc(Math.ceil((LIMITS.imageResponseBytes * 3) / 4))]);
    const over = await setup([{ images: [huge] }]);
    const result = await over.run({ prompt: 'x' });
    expect(result).toMatchObject({ isError: true, text: expect.stringMatching(new RegExp(`image response is over the limit of ${LIMITS.imageResponseBytes} bytes`)) });
    expect(savedFiles(over.workspace)).toEqual([]);
    expect(standIn!.requests).toHaveLength(1);
    await standIn!.close();

    // Under the response limit but over 32 MiB of images once decoded.
    const two = Buffer.concat([TINY_PNG, Buffer.alloc(LIMITS.imageGenerationBytes / 2)]);
    const heavy = await setup([{ images: [two, two] }]);
    expect((await heavy.run({ prompt: 'x' })).text).toMatch(new RegExp(`over the limit of ${LIMITS.imageGenerationBytes} bytes`));
    expect(savedFiles(heavy.workspace)).toEqual([]);
  });

  it('refuses sizes OpenAI cannot make, and bad aspect ratios, before any request', async () => {
    const { run } = await setup([{ images: [TINY_PNG] }]);
    expect((await run({ prompt: 'x', image_size: '4K' })).text).toMatch(/gpt-image-1 makes no 4K images: it takes 1K only \(1024x1024, 1536x1024, 1024x1536\)/);
    expect((await run({ prompt: 'x', aspect_ratio: 'wide' })).text).toMatch(/is not W:H/);
    expect(standIn!.requests).toHaveLength(0);
  });

  it('asks gpt-image-2 for 2K and 4K sizes within its bounds, and refuses a ratio over 3:1 naming the model', async () => {
    const { run } = await setup([{ images: [TINY_PNG] }], { image_model: 'openai/gpt-image-2' });
    for (const args of [{}, { image_size: '2K' }, { image_size: '4K' }, { image_size: '4K', aspect_ratio: '16:9' }, { image_size: '2K', aspect_ratio: '1:1' }, { image_size: '4K', aspect_ratio: '3:1' }]) {
      const result = await run({ prompt: 'a harbour at dawn', ...args });
      expect(result.isError, result.text).toBe(false);
    }
    // 9:16 at 1K is the default; every edge a multiple of 16, the longer at most 3840, at most 8,294,400 pixels.
    expect(standIn!.requests.map((request) => request.fields.size)).toEqual(['768x1360', '1536x2720', '2160x3840', '3840x2160', '2048x2048', '3840x1280']);
    expect(standIn!.requests[0]!.fields).toMatchObject({ model: 'gpt-image-2' });

    const wide = await run({ prompt: 'x', aspect_ratio: '4:1', image_size: '2K' });
    expect(wide.isError).toBe(true);
    expect(wide.text).toMatch(/gpt-image-2 makes no 4:1 image: it takes aspect ratios from 1:3 to 3:1/);
    expect(standIn!.requests).toHaveLength(6);
  });

  it('stops when the run is aborted, without retrying', async () => {
    const { run, workspace } = await setup([{ hang: true }]);
    const controller = new AbortController();
    const pending = run({ prompt: 'x' }, controller.signal);
    await waitFor(() => standIn!.requests.length === 1);
    controller.abort();
    const result = await pending;
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/cancelled/);
    expect(standIn!.requests).toHaveLength(1);
    expect(savedFiles(workspace)).toEqual([]);
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}
