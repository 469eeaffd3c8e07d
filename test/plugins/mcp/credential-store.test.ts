/** The MCP credential stores: the file store's modes, atomic replace and refusal of symlinks; secret-service without a fallback. */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileCredentialStore, SecretServiceCredentialStore, credentialStoreOf, type McpCredentialRecord } from '../../../plugins/mcp/index.js';
import { tempDir } from '../../support/temp.js';

const record = (server: string, token = 'tok'): McpCredentialRecord => ({
  version: 1,
  server,
  resource: 'https://mcp.example.com/mcp',
  issuer: 'https://auth.example.com',
  authorizationServerUrl: 'https://auth.example.com',
  client: { client_id: 'client-1' },
  tokens: { access_token: token, token_type: 'bearer', refresh_token: 'r1' },
  obtainedAt: 1,
});

describe('MCP credential stores', () => {
  const path0 = process.env.PATH;
  afterEach(() => {
    process.env.PATH = path0;
  });

  it('file: nothing on disk until a save; then a 0700 directory and a 0600 file, replaced atomically', async () => {
    const dir = path.join(tempDir('xdog-creds-'), 'mcp-credentials');
    const store = new FileCredentialStore(dir);
    expect(await store.load('remote')).toBeUndefined();
    expect(await store.remove('remote')).toBe(false);
    expect(fs.existsSync(dir)).toBe(false);
    await store.save(record('remote'));
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(dir, 'remote.json')).mode & 0o777).toBe(0o600);
    await store.save(record('remote', 'tok2'));
    expect((await store.load('remote'))?.tokens.access_token).toBe('tok2');
    expect(fs.readdirSync(dir)).toEqual(['remote.json']);
    expect(await store.remove('remote')).toBe(true);
    expect(await store.load('remote')).toBeUndefined();
  });

  it('file: never reads through a symlink, and refuses a symlinked directory', async () => {
    const root = tempDir('xdog-creds-');
    const dir = path.join(root, 'mcp-credentials');
    const store = new FileCredentialStore(dir);
    await store.save(record('real'));
    fs.symlinkSync(path.join(dir, 'real.json'), path.join(dir, 'remote.json'));
    await expect(store.load('remote')).rejects.toThrow(/is a symlink; credentials are never read through one/);
    const linked = path.join(root, 'linked');
    fs.symlinkSync(dir, linked);
    await expect(new FileCredentialStore(linked).save(record('x'))).rejects.toThrow(/is not a directory \(a symlink is refused\)/);
  });

  it('secret-service: without secret-tool it fails and says so; nothing falls back to a file', async () => {
    const root = tempDir('xdog-creds-');
    process.env.PATH = root;
    const store = credentialStoreOf({ mcp_credential_backend: 'secret-service' } as never, { XDG_STATE_HOME: root });
    expect(store).toBeInstanceOf(SecretServiceCredentialStore);
    await expect(store!.save(record('remote'))).rejects.toThrow('mcp_credential_backend is secret-service, but secret-tool is not installed');
    await expect(store!.load('remote')).rejects.toThrow(/secret-tool is not installed/);
    expect(fs.readdirSync(root)).toEqual([]);
    expect(credentialStoreOf({} as never)).toBeUndefined();
  });
});
