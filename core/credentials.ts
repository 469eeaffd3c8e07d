/**
 * Provider credentials: API keys and OAuth tokens, kept in
 * `$XDG_CONFIG_HOME/xdog/credentials.json` (0600, in a 0700 directory,
 * written atomically). Environment variables win over the file. Secrets are
 * never printed and never put into errors or events: error messages name the
 * provider and the file, not the value.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { nonRegularKind } from './bounded-read.js';
import { ErrorCodes, XdogError } from './errors.js';
import { LIMITS } from './limits.js';
import { configDir } from './paths.js';

const ApiKeyCredentialSchema = z.object({ type: z.literal('api_key'), key: z.string().min(1) }).strict();
const OAuthCredentialSchema = z
  .object({
    type: z.literal('oauth'),
    /** Long-lived token (e.g. the GitHub token behind Copilot). */
    refresh: z.string().min(1),
    /** Short-lived access token, if one was exchanged. */
    access: z.string().min(1).optional(),
    /** When `access` expires, in ms since the epoch. */
    expires: z.number().optional(),
  })
  .strict();
const CredentialSchema = z.discriminatedUnion('type', [ApiKeyCredentialSchema, OAuthCredentialSchema]);
const CredentialFileSchema = z.record(z.string().min(1), CredentialSchema);

/** One stored credential. */
export type Credential = z.infer<typeof CredentialSchema>;

/** Where provider credentials live; hosts may rebind `CredentialStoreToken` to their own. */
export interface CredentialStore {
  get(provider: string): Credential | undefined;
  set(provider: string, credential: Credential): void;
  /** Removes a provider's credential; false when there was none. */
  delete(provider: string): boolean;
  /** Providers with a stored credential (names only). */
  providers(): string[];
}

/** `$XDG_CONFIG_HOME/xdog/credentials.json`. */
export function credentialsFilePath(): string {
  return path.join(configDir(), 'credentials.json');
}

/** The file-backed store. Reads the file on every call, so two processes see each other's writes. */
export class FileCredentialStore implements CredentialStore {
  constructor(readonly file: string = credentialsFilePath()) {}

  get(provider: string): Credential | undefined {
    return this.#read()[provider];
  }

  set(provider: string, credential: Credential): void {
    if (typeof provider !== 'string' || provider.length === 0) {
      throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'a credential needs a provider name', { hint: 'name the provider, e.g. openai' });
    }
    const parsed = CredentialSchema.safeParse(credential);
    if (!parsed.success) {
      // Key paths only; values may be secrets.
      const where = parsed.error.issues.map((issue) => issue.path.join('.') || issue.message).join(', ');
      throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `the credential for ${provider} is invalid: ${where}`, {
        hint: 'store { type: "api_key", key } or { type: "oauth", refresh, access?, expires? }',
      });
    }
    const all = this.#read();
    all[provider] = parsed.data;
    this.#write(all);
  }

  delete(provider: string): boolean {
    const all = this.#read();
    if (!(provider in all)) return false;
    delete all[provider];
    this.#write(all);
    return true;
  }

  providers(): string[] {
    return Object.keys(this.#read()).sort();
  }

  #read(): Record<string, Credential> {
    let fd: number;
    try {
      fd = fs.openSync(this.file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw new XdogError(ErrorCodes.AUTH_FAILED, `cannot open the credentials file ${this.file}: ${(error as NodeJS.ErrnoException).code}`, {
        hint: 'it must be a regular file (not a symlink) owned by you',
      });
    }
    try {
      const stat = fs.fstatSync(fd);
      if (!stat.isFile()) {
        throw new XdogError(ErrorCodes.AUTH_FAILED, `the credentials file ${this.file} is ${nonRegularKind(stat)}, not a regular file`, {
          hint: 'remove it and log in again',
        });
      }
      if ((stat.mode & 0o077) !== 0) {
        throw new XdogError(ErrorCodes.AUTH_FAILED, `the credentials file ${this.file} is readable by others (mode ${(stat.mode & 0o777).toString(8)})`, {
          hint: `run chmod 600 ${this.file}, and rotate the keys in it if others could read them`,
        });
      }
      if (stat.size > LIMITS.credentialsFileBytes) {
        throw new XdogError(ErrorCodes.AUTH_FAILED, `the credentials file ${this.file} is ${stat.size} bytes, over the ${LIMITS.credentialsFileBytes}-byte limit`);
      }
      const text = fs.readFileSync(fd, 'utf8');
      let data: unknown;
      try {
        data = JSON.parse(text);
      } catch {
        throw new XdogError(ErrorCodes.AUTH_FAILED, `the credentials file ${this.file} is not valid JSON`, {
          hint: 'fix it by hand or remove it and log in again',
        });
      }
      const parsed = CredentialFileSchema.safeParse(data);
      if (!parsed.success) {
        // Only key paths are reported; values may be secrets.
        const where = parsed.error.issues.map((issue) => issue.path.join('.') || '(top level)').join(', ');
        throw new XdogError(ErrorCodes.AUTH_FAILED, `the credentials file ${this.file} has invalid entries: ${where}`, {
          hint: 'fix them by hand or run xdog agent logout <provider> and log in again',
        });
      }
      return parsed.data;
    } finally {
      fs.closeSync(fd);
    }
  }

  #write(all: Record<string, Credential>): void {
    const dir = path.dirname(this.file);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.chmodSync(dir, 0o700);
    const temp = path.join(dir, `.credentials.${process.pid}.${crypto.randomBytes(6).toString('hex')}.tmp`);
    const fd = fs.openSync(temp, 'wx', 0o600);
    try {
      try {
        fs.writeFileSync(fd, `${JSON.stringify(all, null, 2)}\n`);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(temp, this.file);
    } catch (error) {
      // A failed write or rename must not leave a copy of the secrets behind.
      fs.rmSync(temp, { force: true });
      throw error;
    }
    const dirFd = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(dirFd);
    } finally {
      fs.closeSync(dirFd);
    }
  }
}

/** Where a resolved API key came from (never the key itself). */
export type CredentialSource = `env:${string}` | 'store';

/**
 * An API key for `provider`: the first set environment variable of `envNames`,
 * else an `api_key` credential in the store. Undefined when there is none.
 */
export function resolveApiKey(
  provider: string,
  envNames: readonly string[],
  store: CredentialStore | undefined,
  env: NodeJS.ProcessEnv = process.env,
): { key: string; source: CredentialSource } | undefined {
  for (const name of envNames) {
    const value = env[name];
    if (value) return { key: value, source: `env:${name}` };
  }
  const stored = store?.get(provider);
  if (stored?.type === 'api_key') return { key: stored.key, source: 'store' };
  return undefined;
}
