import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { ContainerModule, CredentialStoreToken, LIMITS, ToolContribution, createKernel, type z } from '../../../core/index.js';
import imagesPlugin from '../../../plugins/images/index.js';
import googlePlugin from '../../../plugins/providers-google/index.js';
import { TINY_PNG } from '../../support/images-standin.js';
import { tempDir } from '../../support/temp.js';
import { noStore, startVendorServer, type ScriptedReply, type VendorServer } from '../providers-shared/vendor-server.js';

const KEY = 'gemini-test-images-key-789';
let server: VendorServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  delete process.env.XDOG_TEST_GEMINI_IMAGES_KEY;
});

async function generate(reply: ScriptedReply, args: Record<string, unknown>, files: Record<string, Buffer> = {}) {
  server = await startVendorServer([reply]);
  process.env.XDOG_TEST_GEMINI_IMAGES_KEY = KEY;
  const workspace = tempDir('xdog-gemini-images-');
  for (const [name, data] of Object.entries(files)) fs.writeFileSync(`${workspace}/${name}`, data);
  const config = { providers: { google: { api_key_env: 'XDOG_TEST_GEMINI_IMAGES_KEY', base_url: server.url } }, claw: { image_model: 'google/gemini-2.5-flash-image' } };
  const overrides = [new ContainerModule(({ bind }) => void bind(CredentialStoreToken).toConstantValue(noStore))];
  const kernel = await createKernel({ plugins: [googlePlugin, imagesPlugin], config, cwd: workspace, overrides });
  const tool = kernel.getAll(ToolContribution).find((candidate) => candidate.name === 'generate_image')!;
  const result = await tool.execute((tool.parameters as z.ZodType).parse(args), { toolCallId: 'c1', signal: new AbortController().signal, onUpdate: () => {}, toolCtx: {} });
  const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
  return { result, text, paths: (result.details as { paths?: string[] } | undefined)?.paths ?? [] };
}

describe('generate_image with a Gemini image model against a local generateContent stand-in', () => {
  it('sends the prompt, references and image config, and saves the inline image', async () => {
    const json = { candidates: [{ content: { role: 'model', parts: [{ text: 'here it is' }, { inlineData: { mimeType: 'image/png', data: TINY_PNG.toString('base64') } }] }, finishReason: 'STOP' }] };
    const { result, paths } = await generate({ json }, { prompt: 'a blue bird', aspect_ratio: '9:16', image_size: '2K', references: ['ref.png'] }, { 'ref.png': TINY_PNG });
    expect(result.isError).toBeFalsy();
    expect(paths).toHaveLength(1);
    expect(fs.readFileSync(paths[0]!)).toEqual(TINY_PNG);
    expect(fs.statSync(paths[0]!).mode & 0o777).toBe(0o600);
    const request = server!.requests[0]!;
    expect(request.url).toBe('/v1beta/models/gemini-2.5-flash-image:generateContent');
    expect(request.headers['x-goog-api-key']).toBe(KEY);
    expect(request.body).toMatchObject({
      contents: [{ role: 'user', parts: [{ text: 'a blue bird' }, { inlineData: { mimeType: 'image/png', data: TINY_PNG.toString('base64') } }] }],
      generationConfig: { responseModalities: ['IMAGE'], imageConfig: { aspectRatio: '9:16', imageSize: '2K' } },
    });
    expect(server!.requests).toHaveLength(1);
  });

  it('reports a refusal without images as a tool error, saving nothing', async () => {
    const { result, text, paths } = await generate({ json: { candidates: [{ content: { role: 'model', parts: [{ text: 'no' }] }, finishReason: 'IMAGE_SAFETY' }] } }, { prompt: 'x' });
    expect(result.isError).toBe(true);
    expect(text).toMatch(/returned no image \(IMAGE_SAFETY\)/);
    expect(paths).toEqual([]);
    expect(server!.requests).toHaveLength(1);
    // Named nothing, the request carries the seed's defaults.
    expect(server!.requests[0]!.body).toMatchObject({ generationConfig: { imageConfig: { aspectRatio: '9:16', imageSize: '1K' } } });
  });

  it('reports a server error once, with the key redacted', async () => {
    const { result, text } = await generate({ status: 400, json: { error: { code: 400, message: `bad request ${KEY}`, status: 'INVALID_ARGUMENT' } } }, { prompt: 'x' });
    expect(result.isError).toBe(true);
    expect(text).toMatch(/bad request/);
    expect(text).not.toContain(KEY);
    expect(server!.requests).toHaveLength(1);
  });

  it('refuses an answer over the response limit while reading it, declared or streamed, and saves nothing', async () => {
    // One image of base64 just past the limit: 32 MiB of images cannot be in it, and nothing is cut to fit.
    const data = 'A'.repeat(LIMITS.imageResponseBytes + 1024);
    const json = JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ inlineData: { mimeType: 'image/png', data } }] }, finishReason: 'STOP' }] });
    const declared = await generate({ json: JSON.parse(json) }, { prompt: 'x' });
    expect(declared.result.isError).toBe(true);
    expect(declared.text).toMatch(new RegExp(`image response is over the limit of ${LIMITS.imageResponseBytes} bytes`));
    expect(declared.paths).toEqual([]);
    expect(server!.requests).toHaveLength(1);
    await server!.close();

    // Without a content-length (chunked), the reader stops at the limit.
    const chunks = json.match(/[\s\S]{1,1048576}/g)!;
    const streamed = await generate({ sse: chunks, headers: { 'content-type': 'application/json' } }, { prompt: 'x' });
    expect(streamed.result.isError).toBe(true);
    expect(streamed.text).toMatch(/image response is over the limit/);
    expect(streamed.paths).toEqual([]);
    expect(server!.requests).toHaveLength(1);
  });
});
