/** `xdog claw generate-image` through the built CLI against a local OpenAI Images stand-in. */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
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
