import { afterEach, describe, expect, it } from 'vitest';
import type { Credential, CredentialStore, ModelContext } from '../../../core/index.js';
import { CopilotProvider, deviceCodeLogin } from '../../../plugins/providers-github-copilot/index.js';
import { collect, startVendorServer, type RecordedRequest, type ScriptedReply, type VendorServer } from '../providers-shared/vendor-server.js';

function memoryStore(initial: Record<string, Credential> = {}): CredentialStore {
  const data = { ...initial };
  return {
    get: (provider) => data[provider],
    set: (provider, credential) => void (data[provider] = credential),
    delete: (provider) => delete data[provider],
    providers: () => Object.keys(data),
  };
}

let server: VendorServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const context: ModelContext = { messages: [{ role: 'user', content: 'hi', timestamp: 1 }], tools: [] };
const textChunk = (content: string, finish: string | null = null) => ({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'gpt-4.1', choices: [{ index: 0, delta: { content }, finish_reason: finish }] });

describe('GitHub Copilot provider against a local stand-in', () => {
  it('logs in with the device flow, polling until approved', async () => {
    let polls = 0;
    server = await startVendorServer((request: RecordedRequest): ScriptedReply => {
      if (request.url === '/login/device/code') return { json: { device_code: 'dev-1', user_code: 'ABCD-1234', verification_uri: 'https://github.com/login/device', expires_in: 60, interval: 0 } };
      polls++;
      return polls < 3 ? { json: { error: 'authorization_pending' } } : { json: { access_token: 'gho_secret', token_type: 'bearer' } };
    });
    const shown: string[] = [];
    const token = await deviceCodeLogin({ githubUrl: server.url, onCode: (code) => shown.push(`${code.verificationUri} ${code.userCode}`) });
    expect(token).toBe('gho_secret');
    expect(shown).toEqual(['https://github.com/login/device ABCD-1234']);
    expect(server.requests[0]!.body).toMatchObject({ client_id: expect.any(String), scope: 'read:user' });
    expect(server.requests.at(-1)!.body).toMatchObject({ device_code: 'dev-1', grant_type: 'urn:ietf:params:oauth:grant-type:device_code' });
  });

  it('fails the login clearly when it is denied', async () => {
    server = await startVendorServer((request) =>
      request.url === '/login/device/code'
        ? { json: { device_code: 'd', user_code: 'U', verification_uri: 'https://github.com/login/device', expires_in: 60, interval: 0 } }
        : { json: { error: 'access_denied' } },
    );
    await expect(deviceCodeLogin({ githubUrl: server.url, onCode: () => {} })).rejects.toThrow('the login was denied on GitHub');
  });

  it('exchanges the GitHub token once and streams from the assigned endpoint with Copilot headers', async () => {
    server = await startVendorServer((request) => {
      if (request.url === '/copilot_internal/v2/token') return { json: { token: 'tid=copilot-short', expires_at: Math.floor(Date.now() / 1000) + 1800, endpoints: { api: server!.url } } };
      return { sse: [textChunk('hello '), textChunk('there', 'stop'), 'data: [DONE]\n\n'] };
    });
    const provider = new CopilotProvider({}, memoryStore({ copilot: { type: 'oauth', refresh: 'gho_stored' } }), { githubApiUrl: server.url });
    for (let i = 0; i < 2; i++) {
      const end = (await collect(provider.stream('gpt-4.1', context, {}))).at(-1)!;
      expect(end).toMatchObject({ type: 'done', message: { content: [{ type: 'text', text: 'hello there' }] } });
    }
    const [exchange, ...chats] = server.requests;
    expect(exchange!.headers.authorization).toBe('token gho_stored');
    expect(chats.map((request) => request.url)).toEqual(['/chat/completions', '/chat/completions']);
    expect(chats[0]!.headers.authorization).toBe('Bearer tid=copilot-short');
    expect(chats[0]!.headers['copilot-integration-id']).toBe('vscode-chat');
    expect(chats[0]!.headers['editor-version']).toBeDefined();
  });

  it('reports a refused exchange as an auth failure, without retrying or leaking the token', async () => {
    server = await startVendorServer([{ status: 401, json: { message: 'Bad credentials' } }]);
    const provider = new CopilotProvider({}, memoryStore({ copilot: { type: 'oauth', refresh: 'gho_leaky_token' } }), { githubApiUrl: server.url });
    const events = await collect(provider.stream('gpt-4.1', context, {}));
    const end = events.at(-1)!;
    expect(end.type).toBe('error');
    expect((end as { message: { errorMessage: string } }).message.errorMessage).toMatch(/authentication failed \(HTTP 401\).*run: xdog agent login copilot/);
    expect(JSON.stringify(events)).not.toContain('gho_leaky_token');
    expect(server.requests).toHaveLength(1);
  });

  it('gives up on a token exchange that never answers, after the configured timeout', async () => {
    server = await startVendorServer([{ hang: true }]);
    const policy = { attempts: 0, baseDelayMs: 1, maxDelayMs: 1, random: () => 0 };
    const config = { providers: { copilot: { timeout: 0.3 } } };
    const provider = new CopilotProvider(config, memoryStore({ copilot: { type: 'oauth', refresh: 'gho_stored' } }), { githubApiUrl: server.url, policy });
    const end = (await collect(provider.stream('gpt-4.1', context, {}))).at(-1)! as { type: string; message: { errorMessage: string } };
    expect(end.type).toBe('error');
    expect(end.message.errorMessage).toMatch(/Copilot token exchange .* did not answer within 0\.3 s/);
  });

  it('says to log in when there is no GitHub token', async () => {
    const provider = new CopilotProvider({}, memoryStore(), { githubApiUrl: 'http://127.0.0.1:9' });
    const end = (await collect(provider.stream('gpt-4.1', context, {}))).at(-1)! as { message: { errorMessage: string } };
    expect(end.message.errorMessage).toBe('copilot: not logged in to GitHub Copilot; run: xdog agent login copilot');
  });
});
