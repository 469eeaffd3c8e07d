/** Providers through the built CLI: login stores a key, chat uses it against a local OpenAI-compatible server. */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { repoRoot, runCli } from '../support/cli.js';
import { tempDir, writeTree } from '../support/temp.js';
import { startVendorServer, type VendorServer } from '../plugins/providers-shared/vendor-server.js';

/** Runs the CLI without blocking this process (the stand-in server lives here). */
function runCliAsync(args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(repoRoot, 'bin/run.js'), ...args], { env: { ...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: '1', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

let server: VendorServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function home() {
  const root = tempDir('xdog-e2e-providers-');
  const env = { XDG_CONFIG_HOME: path.join(root, 'config'), XDG_DATA_HOME: path.join(root, 'data'), OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '' };
  return { root, env, configFile: path.join(root, 'config/xdog/config.yaml') };
}

describe('providers through the CLI', { timeout: 120_000 }, () => {
  it('login stores a private key that chat then sends to the configured OpenAI-compatible server', async () => {
    const { env, configFile } = home();
    server = await startVendorServer([
      {
        sse: [
          { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: 'local answer' }, finish_reason: 'stop' }] },
          'data: [DONE]\n\n',
        ],
      },
    ]);
    writeTree(path.dirname(configFile), { 'config.yaml': `providers:\n  openai:\n    base_url: "${server.url}/v1"\n` });

    const login = await runCliAsync(['agent', 'login', 'openai'], env, 'sk-e2e-stored-key\n');
    expect(login.status).toBe(0);
    expect(login.stdout + login.stderr).not.toContain('sk-e2e-stored-key');
    const credentials = path.join(env.XDG_CONFIG_HOME, 'xdog/credentials.json');
    expect(fs.statSync(credentials).mode & 0o777).toBe(0o600);

    const chat = await runCliAsync(['agent', 'chat', 'openai/gpt-4.1', 'hello', '--no-tools'], env);
    expect(chat.stderr).toBe('');
    expect(chat.status).toBe(0);
    expect(chat.stdout).toBe('local answer\n');
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-e2e-stored-key');
    expect(server.requests[0]!.body).toMatchObject({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'hello' }] });
    expect(server.requests[0]!.body.tools).toBeUndefined();

    expect(runCli(['agent', 'logout', 'openai'], { env }).status).toBe(0);
    expect(JSON.parse(fs.readFileSync(credentials, 'utf8'))).toEqual({});
  });

  it('a 401 from the provider exits 1 with an actionable message', async () => {
    const { env, configFile } = home();
    server = await startVendorServer([{ status: 401, json: { error: { message: 'bad key', type: 'invalid_request_error' } } }]);
    writeTree(path.dirname(configFile), { 'config.yaml': `providers:\n  local:\n    type: openai\n    base_url: "${server.url}/v1"\n    api_key_env: LOCAL_KEY\n` });
    const chat = await runCliAsync(['agent', 'chat', 'local/any-model', 'hi', '--no-tools'], { ...env, LOCAL_KEY: 'k-123456' });
    expect(chat.status).toBe(1);
    expect(chat.stderr).toMatch(/^xdog: local: authentication failed \(HTTP 401\): bad key; set LOCAL_KEY or run: xdog agent login local \[MODEL_FAILED\]/);
    expect(server.requests).toHaveLength(1);
  });

  it('models lists catalog and config models; a bare id two providers offer is refused', () => {
    const { env, configFile } = home();
    writeTree(path.dirname(configFile), { 'config.yaml': 'models:\n  - { id: openai/my-finetune, context_window: 16000, max_output: 4000 }\n' });
    const listed = runCli(['agent', 'models', 'openai', '--json'], { env });
    expect(listed.status).toBe(0);
    const models = JSON.parse(listed.stdout) as Array<{ model: string; contextWindow?: number }>;
    expect(models[0]).toEqual({ model: 'openai/my-finetune', provider: 'openai', id: 'my-finetune', contextWindow: 16000, maxOutputTokens: 4000 });
    expect(models.map((model) => model.model)).toContain('openai/gpt-4.1');

    const ambiguous = runCli(['agent', 'chat', 'gpt-4.1', 'hi', '--no-tools'], { env });
    expect(ambiguous.status).toBe(2);
    expect(ambiguous.stderr).toContain('model "gpt-4.1" is offered by 2 providers: copilot/gpt-4.1, openai/gpt-4.1 [MODEL_AMBIGUOUS]');
  });

  it('models lists configured providers, saying which take any model id', () => {
    const { env, configFile } = home();
    writeTree(path.dirname(configFile), {
      'config.yaml': 'providers:\n  local: { type: openai, base_url: "http://127.0.0.1:9/v1" }\n  proxy: { type: anthropic, base_url: "http://127.0.0.1:9" }\nmodels:\n  - { id: proxy/house-claude, context_window: 100000, max_output: 8000 }\n',
    });
    const json = runCli(['agent', 'models', '--json'], { env });
    expect(json.status).toBe(0);
    const models = JSON.parse(json.stdout) as Array<{ model: string; anyModel?: true }>;
    expect(models.filter((model) => model.model.startsWith('local/'))).toEqual([{ model: 'local/*', provider: 'local', id: '*', anyModel: true }]);
    expect(models.filter((model) => model.model.startsWith('proxy/')).map((model) => model.model)).toEqual(['proxy/house-claude']);
    const text = runCli(['agent', 'models', 'local'], { env });
    expect(text.stdout).toMatch(/^local\/<any model id>\s+.*configured: takes any model id/m);
  });
});
