/** The MCP credential stores: the file store's modes, atomic replace and refusal of symlinks; secret-service without a fallback. */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileCredentialStore, SecretServiceCredentialStore, credentialStoreOf, type McpCredentialRecord } from '../../../plugins/mcp/index.js';
import { repoRoot } from '../../support/cli.js';
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

  it('secret-service: without its tools it fails and says so; nothing falls back to a file', async () => {
    const root = tempDir('xdog-creds-');
    process.env.PATH = root;
    const store = credentialStoreOf({ mcp_credential_backend: 'secret-service' } as never, { XDG_STATE_HOME: root });
    expect(store).toBeInstanceOf(SecretServiceCredentialStore);
    await expect(store!.save(record('remote'))).rejects.toThrow(/mcp_credential_backend is secret-service, but/);
    await expect(store!.load('remote')).rejects.toMatchObject({ code: 'UNAVAILABLE', hint: expect.stringContaining('set mcp_credential_backend: file') });
    expect(fs.readdirSync(root)).toEqual([]);
    expect(credentialStoreOf({} as never)).toBeUndefined();
  });

  const keyringTools = ['dbus-run-session', 'gnome-keyring-daemon', 'secret-tool', 'dbus-send'].every((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0);
  /** Runs `script` (an ES module using the built store) in a private D-Bus session, with an unlocked keyring when `keyring`. */
  const inSession = (keyring: boolean, script: string) => {
    const home = tempDir('xdog-keyring-');
    const file = path.join(home, 'script.mjs');
    fs.writeFileSync(file, `const { SecretServiceCredentialStore } = await import(${JSON.stringify(path.join(repoRoot, 'dist/plugins/mcp/index.js'))});\nconst record = ${JSON.stringify(record('remote', 'keyring-token'))};\n${script}`);
    const start = keyring ? 'eval "$(printf pw | gnome-keyring-daemon --unlock --components=secrets)"; ' : '';
    const result = spawnSync('dbus-run-session', ['--', 'sh', '-c', `export HOME=${home}; ${start}${JSON.stringify(process.execPath)} ${file}`], { encoding: 'utf8', timeout: 60_000 });
    expect(result.status, result.stderr).toBe(0);
    return JSON.parse(result.stdout.trim().split('\n').at(-1)!);
  };

  it.skipIf(!keyringTools)('secret-service: round-trips through an unlocked keyring, readable with secret-tool', () => {
    const answer = inSession(true, [
      "import { execFileSync } from 'node:child_process';",
      'const store = new SecretServiceCredentialStore();',
      'await store.save(record);',
      "const loaded = await store.load('remote');",
      "const viaTool = JSON.parse(execFileSync('secret-tool', ['lookup', 'service', 'xdog-mcp', 'username', 'remote'], { encoding: 'utf8' }));",
      "const removed = await store.remove('remote');",
      "console.log(JSON.stringify({ loaded: loaded.tokens.access_token, viaTool: viaTool.tokens.access_token, removed, after: (await store.load('remote')) ?? null }));",
    ].join('\n'));
    expect(answer).toEqual({ loaded: 'keyring-token', viaTool: 'keyring-token', removed: true, after: null });
  });

  it.skipIf(!keyringTools)('secret-service: refuses a session without a running vault and does not start one', () => {
    const answer = inSession(false, [
      "import { execFileSync } from 'node:child_process';",
      'let error;',
      "try { await new SecretServiceCredentialStore().load('remote'); } catch (caught) { error = caught.message; }",
      "const owner = execFileSync('dbus-send', ['--session', '--print-reply', '--dest=org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus.NameHasOwner', 'string:org.freedesktop.secrets'], { encoding: 'utf8' });",
      'console.log(JSON.stringify({ error, started: /boolean true/.test(owner) }));',
    ].join('\n'));
    expect(answer).toEqual({ error: 'no Secret Service is running in this D-Bus session; xdog does not start one', started: false });
  });
});
