import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileCredentialStore, XdogError, resolveApiKey } from '../../core/index.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xdog-cred-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('FileCredentialStore', () => {
  it('writes 0600 in a 0700 directory, atomically, and reads back', () => {
    const file = path.join(dir, 'xdog', 'credentials.json');
    const store = new FileCredentialStore(file);
    store.set('openai', { type: 'api_key', key: 'sk-1' });
    store.set('copilot', { type: 'oauth', refresh: 'gho_x', access: 'tid', expires: 5 });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(fs.readdirSync(path.dirname(file))).toEqual(['credentials.json']);
    expect(new FileCredentialStore(file).get('openai')).toEqual({ type: 'api_key', key: 'sk-1' });
    expect(store.providers()).toEqual(['copilot', 'openai']);
    expect(store.delete('openai')).toBe(true);
    expect(store.delete('openai')).toBe(false);
    expect(store.providers()).toEqual(['copilot']);
  });

  it('refuses a file others can read, without showing its content', () => {
    const file = path.join(dir, 'credentials.json');
    fs.writeFileSync(file, JSON.stringify({ openai: { type: 'api_key', key: 'sk-visible' } }), { mode: 0o644 });
    fs.chmodSync(file, 0o644);
    const error = (() => {
      try {
        new FileCredentialStore(file).get('openai');
      } catch (caught) {
        return caught as XdogError;
      }
    })();
    expect(error?.code).toBe('AUTH_FAILED');
    expect(error?.message).toContain('readable by others (mode 644)');
    expect(error?.hint).toContain(`chmod 600 ${file}`);
    expect(JSON.stringify(error)).not.toContain('sk-visible');
  });

  it('reports invalid entries by key path only', () => {
    const file = path.join(dir, 'credentials.json');
    fs.writeFileSync(file, JSON.stringify({ openai: { type: 'api_key', key: 'sk-secret', extra: 1 } }), { mode: 0o600 });
    expect(() => new FileCredentialStore(file).get('openai')).toThrow(/invalid entries: openai/);
    try {
      new FileCredentialStore(file).get('openai');
    } catch (error) {
      expect((error as Error).message).not.toContain('sk-secret');
    }
  });

  it('refuses an invalid credential or an empty provider name with a typed error, leaving the file as it was', () => {
    const file = path.join(dir, 'credentials.json');
    const store = new FileCredentialStore(file);
    store.set('openai', { type: 'api_key', key: 'sk-kept' });
    const before = fs.readFileSync(file, 'utf8');
    const failure = (write: () => void) => {
      try {
        write();
      } catch (error) {
        return error as XdogError;
      }
      throw new Error('expected the write to be refused');
    };
    const bad = failure(() => store.set('anthropic', { type: 'api_key', key: 'sk-new', extra: 'sk-extra' } as never));
    expect(XdogError.is(bad, 'INVALID_ARGUMENT')).toBe(true);
    expect(bad.message).toContain('anthropic');
    expect(JSON.stringify({ message: bad.message, hint: bad.hint })).not.toContain('sk-');
    const unnamed = failure(() => store.set('', { type: 'api_key', key: 'sk-new' }));
    expect(XdogError.is(unnamed, 'INVALID_ARGUMENT')).toBe(true);
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
    expect(store.get('openai')).toEqual({ type: 'api_key', key: 'sk-kept' });
  });

  it('prefers the environment over the store', () => {
    const store = new FileCredentialStore(path.join(dir, 'c.json'));
    store.set('openai', { type: 'api_key', key: 'from-store' });
    expect(resolveApiKey('openai', ['OPENAI_API_KEY'], store, { OPENAI_API_KEY: 'from-env' })).toEqual({ key: 'from-env', source: 'env:OPENAI_API_KEY' });
    expect(resolveApiKey('openai', ['OPENAI_API_KEY'], store, {})).toEqual({ key: 'from-store', source: 'store' });
    expect(resolveApiKey('anthropic', ['ANTHROPIC_API_KEY'], store, {})).toBeUndefined();
  });
});
