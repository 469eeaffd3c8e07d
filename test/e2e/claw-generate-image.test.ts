/**
 * Image generation end to end against a local OpenAI Images stand-in:
 * `xdog claw generate-image` through the built CLI, and scenario 21 — the
 * generate_image tool in a claw group of a real gateway process, called by
 * the faux model.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LIMITS } from '../../core/index.js';
import type { GatewayConnection } from '../../plugins/claw-gateway/index.js';
import { clawSandbox, connect, startGateway, until, watch, type ClawSandbox, type GatewayProcess } from '../support/claw.js';
import { runCliAsync } from '../support/cli.js';
import { TINY_PNG, startImagesStandIn, type ImagesStandIn } from '../support/images-standin.js';
import { tempDir, writeTree } from '../support/temp.js';

const KEY = 'sk-e2e-images-key';
let standIn: ImagesStandIn | undefined;
afterEach(async () => {
  await standIn?.close();
  standIn = undefined;
});

function home(imageModel = 'openai/gpt-image-1') {
  const root = tempDir('xdog-e2e-images-');
  const workspace = path.join(root, 'workspace');
  fs.mkdirSync(workspace);
  const env = { XDG_CONFIG_HOME: path.join(root, 'config'), XDG_DATA_HOME: path.join(root, 'data'), OPENAI_API_KEY: '', XDOG_E2E_IMAGES_KEY: KEY };
  writeTree(path.join(root, 'config/xdog'), {
    'config.yaml': `providers:\n  openai:\n    base_url: "${standIn!.url}/v1"\n    api_key_env: XDOG_E2E_IMAGES_KEY\nclaw:\n  image_model: ${imageModel}\n`,
  });
  return { root, workspace, env };
}

describe('xdog claw generate-image', { timeout: 120_000 }, () => {
  it('prints JSON with the absolute paths of new private files, sending references as an edit', async () => {
    standIn = await startImagesStandIn([{ images: [TINY_PNG] }]);
    const { workspace, env } = home();
    fs.writeFileSync(path.join(workspace, 'cat.jpg'), TINY_PNG);
    const run = await runCliAsync(['claw', 'generate-image', 'the same cat, in a hat', '--aspect-ratio', '16:9', '--image-size', '1K', '--reference', 'cat.jpg', '--output-dir', 'out'], { env, cwd: workspace });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const printed = JSON.parse(run.stdout) as { model: string; paths: string[] };
    expect(printed.model).toBe('openai/gpt-image-1');
    expect(printed.paths).toHaveLength(1);
    const file = printed.paths[0]!;
    expect(path.isAbsolute(file)).toBe(true);
    expect(path.dirname(file)).toBe(path.join(fs.realpathSync(workspace), 'out'));
    expect(fs.readFileSync(file)).toEqual(TINY_PNG);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(standIn.requests).toHaveLength(1);
    expect(standIn.requests[0]).toMatchObject({ url: '/v1/images/edits', authorization: `Bearer ${KEY}`, fields: { model: 'gpt-image-1', size: '1536x1024' } });
    expect(standIn.requests[0]!.files).toEqual([{ field: 'image[]', type: 'image/png', bytes: TINY_PNG.length }]);
  });

  it('works in the default group\'s workspace, relative paths included, wherever it is run from', async () => {
    standIn = await startImagesStandIn([{ images: [TINY_PNG] }]);
    const { root, workspace, env } = home();
    const configFile = path.join(root, 'config/xdog/config.yaml');
    fs.appendFileSync(configFile, `  groups:\n    main:\n      workspace: ${workspace}\n      model: faux/demo\n`);
    fs.writeFileSync(path.join(workspace, 'cat.png'), TINY_PNG);
    const run = await runCliAsync(['claw', 'generate-image', 'the cat again', '--reference', 'cat.png'], { env, cwd: root });
    expect(run.stderr).toBe('');
    const printed = JSON.parse(run.stdout) as { paths: string[] };
    expect(path.dirname(printed.paths[0]!)).toBe(path.join(fs.realpathSync(workspace), 'generated-images'));
    expect(standIn.requests[0]).toMatchObject({ url: '/v1/images/edits' });
    const unknown = await runCliAsync(['claw', 'generate-image', 'x', '--group', 'nope'], { env, cwd: root });
    expect(unknown.status).not.toBe(0);
    expect(unknown.stderr).toContain('no claw group "nope" is configured');
    expect(standIn.requests).toHaveLength(1);
  });

  it('refuses an output directory outside the workspace with one line and no request', async () => {
    standIn = await startImagesStandIn([{ images: [TINY_PNG] }]);
    const { root, workspace, env } = home();
    const run = await runCliAsync(['claw', 'generate-image', 'x', '--workspace', workspace, '--output-dir', path.join(root, 'elsewhere')], { env, cwd: root });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(/^xdog: output directory .* is outside the workspace .*\[INVALID_ARGUMENT\]/);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(fs.existsSync(path.join(root, 'elsewhere'))).toBe(false);
    expect(standIn.requests).toHaveLength(0);
  });

  it('refuses a chat model as claw.image_model, with no fallback', async () => {
    standIn = await startImagesStandIn([{ images: [TINY_PNG] }]);
    const { workspace, env } = home('openai/gpt-4.1');
    const run = await runCliAsync(['claw', 'generate-image', 'x'], { env, cwd: workspace });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(/openai\/gpt-4\.1 does not generate images .*\[UNSUPPORTED\]/);
    expect(standIn.requests).toHaveLength(0);
    expect(fs.existsSync(path.join(workspace, 'generated-images'))).toBe(false);
  });
});

describe('generate_image in a claw group (scenario 21)', { timeout: 180_000 }, () => {
  let gateway: GatewayProcess | undefined;
  let client: GatewayConnection | undefined;
  afterEach(async () => {
    await client?.close();
    await gateway?.stop();
    client = gateway = undefined;
  });

  /** A group whose faux model may call generate_image, the images going to the stand-in (none configured when `imageModel` is null). */
  function imageSandbox(imageModel: string | null): ClawSandbox {
    const sandbox = clawSandbox(imageModel ? `  image_model: ${imageModel}\n` : '');
    const config = fs.readFileSync(sandbox.configFile, 'utf8');
    const tools = imageModel ? 'enabled_tools: [bash, read, generate_image]' : 'enabled_tools: [bash, read]';
    fs.writeFileSync(sandbox.configFile, `${config.replace('enabled_tools: [bash, read]', tools)}providers:\n  openai:\n    base_url: "${standIn!.url}/v1"\n    api_key_env: XDOG_E2E_IMAGES_KEY\n`);
    sandbox.env.XDOG_E2E_IMAGES_KEY = KEY;
    sandbox.env.OPENAI_API_KEY = '';
    return sandbox;
  }

  /** Has the faux model call generate_image with `args`; resolves the tool result it saw. */
  async function callTool(sandbox: ClawSandbox, ends: unknown[], args: Record<string, unknown>): Promise<{ text: string; isError: boolean }> {
    const before = ends.length;
    await client!.call('prompt', { text: `callj generate_image ${JSON.stringify(args)}`, idempotencyKey: `k${before}` });
    await until(() => ends.length === before + 1, 'the run to end');
    const result = sandbox.requests().at(-1)!.messages.at(-1)!;
    expect(result.role).toBe('toolResult');
    const text = (result.content as Array<{ type: string; text?: string }>).map((part) => part.text ?? '').join('');
    return { text, isError: result.isError === true };
  }

  it('saves under the workspace with unique names; refuses ../x, a 5th and an 11 MiB reference without a request; a provider failure is one call, no retry', async () => {
    standIn = await startImagesStandIn([{ images: [TINY_PNG] }, { images: [TINY_PNG] }, { status: 500, message: 'the image backend is down' }]);
    const sandbox = imageSandbox('openai/gpt-image-1');
    fs.writeFileSync(path.join(sandbox.workspace, 'ref.png'), TINY_PNG);
    const big = path.join(sandbox.workspace, 'big.png');
    fs.writeFileSync(big, TINY_PNG);
    fs.truncateSync(big, 11 * 1024 * 1024);
    gateway = await startGateway(sandbox);
    client = await connect(sandbox);
    const { ends } = await watch(client);
    const workspace = fs.realpathSync(sandbox.workspace);

    const first = await callTool(sandbox, ends, { prompt: 'a fox in snow' });
    const second = await callTool(sandbox, ends, { prompt: 'a fox in snow', references: ['ref.png'], output_dir: 'art' });
    expect([first.isError, second.isError]).toEqual([false, false]);
    const [firstFile] = /\/\S+\.png/.exec(first.text)!;
    const [secondFile] = /\/\S+\.png/.exec(second.text)!;
    expect(path.dirname(firstFile)).toBe(path.join(workspace, 'generated-images'));
    expect(path.dirname(secondFile)).toBe(path.join(workspace, 'art'));
    expect(path.basename(firstFile)).not.toBe(path.basename(secondFile));
    expect(fs.readFileSync(firstFile)).toEqual(TINY_PNG);
    expect(fs.statSync(secondFile).mode & 0o777).toBe(0o600);
    expect(standIn.requests.map((request) => request.url)).toEqual(['/v1/images/generations', '/v1/images/edits']);

    const outside = await callTool(sandbox, ends, { prompt: 'x', output_dir: '../x' });
    expect(outside).toMatchObject({ isError: true, text: expect.stringMatching(/output directory \.\.\/x is outside the workspace/) });
    expect(fs.existsSync(path.join(sandbox.root, 'x'))).toBe(false);
    const fifth = await callTool(sandbox, ends, { prompt: 'x', references: Array.from({ length: LIMITS.imageReferences + 1 }, () => 'ref.png') });
    expect(fifth.isError).toBe(true);
    expect(fifth.text).toMatch(/references/);
    const heavy = await callTool(sandbox, ends, { prompt: 'x', references: ['big.png'] });
    expect(heavy).toMatchObject({ isError: true, text: expect.stringMatching(/reference image big\.png .*over the limit/) });
    expect(standIn.requests).toHaveLength(2);

    const failed = await callTool(sandbox, ends, { prompt: 'x' });
    expect(failed.isError).toBe(true);
    expect(failed.text).toMatch(/the image backend is down/);
    expect(standIn.requests).toHaveLength(3);
    // The tool result was the answer: the faux model saw an error, and no other model was asked for an image.
    expect(fs.readdirSync(path.join(workspace, 'generated-images'))).toEqual([path.basename(firstFile)]);
  });

  it('with no image_model the call is a tool error, not chat, and nothing is requested', async () => {
    standIn = await startImagesStandIn([{ images: [TINY_PNG] }]);
    const sandbox = imageSandbox(null);
    gateway = await startGateway(sandbox);
    client = await connect(sandbox);
    const { ends } = await watch(client);
    const result = await callTool(sandbox, ends, { prompt: 'a fox' });
    // Without claw.image_model the tool is not offered at all: the call fails as a tool call, and no chat model stands in.
    expect(result).toEqual({ isError: true, text: 'Tool "generate_image" is not available' });
    expect(standIn.requests).toHaveLength(0);
    expect(fs.existsSync(path.join(sandbox.workspace, 'generated-images'))).toBe(false);
    // The CLI says why, with the key to set.
    const cli = await runCliAsync(['claw', 'generate-image', 'a fox', '--workspace', sandbox.workspace], { env: sandbox.env, cwd: sandbox.root });
    expect(cli.status).not.toBe(0);
    expect(cli.stderr).toMatch(/^xdog: no image model is configured \[CONFIG_INVALID\] \(set claw\.image_model/);
    expect(standIn.requests).toHaveLength(0);
  });
});
