/**
 * Where MCP OAuth credentials are kept, when the user asks for it
 * (`mcp_credential_backend`): `file` (one 0600 JSON file per server in a 0700
 * directory, written atomically, never through a symlink) or `secret-service`
 * (an existing, unlocked Secret Service vault through `secret-tool`, 10 s per
 * call; xdog never starts or unlocks one). There is no fallback from one to
 * the other, and without the key nothing is saved or loaded.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { ErrorCodes, XdogError, stateDir, type XdogConfig } from '../../core/index.js';
import { syncDirectory } from '../../core/sync-directory.js';

/** Bytes of one saved record (a token set and a client registration fit in far less). */
const RECORD_BYTES = 64 * 1024;
/** Seconds one secret-tool call may take. */
const SECRET_TOOL_SECONDS = 10;

export const McpCredentialRecordSchema = z
  .object({
    version: z.literal(1),
    server: z.string(),
    /** The MCP endpoint the tokens are for (the RFC 8707 resource). */
    resource: z.string(),
    issuer: z.string(),
    authorizationServerUrl: z.string(),
    client: z.object({ client_id: z.string(), client_secret: z.string().optional() }).passthrough(),
    tokens: z.object({ access_token: z.string(), token_type: z.string(), refresh_token: z.string().optional(), scope: z.string().optional(), expires_in: z.number().optional() }).passthrough(),
    /** Epoch ms. */
    obtainedAt: z.number(),
    expiresAt: z.number().optional(),
  })
  .strict();
export type McpCredentialRecord = z.infer<typeof McpCredentialRecordSchema>;

export interface McpCredentialStore {
  readonly backend: 'file' | 'secret-service';
  /** Where it keeps them (for messages). */
  readonly location: string;
  load(server: string): Promise<McpCredentialRecord | undefined>;
  save(record: McpCredentialRecord): Promise<void>;
  /** True when something was removed. */
  remove(server: string): Promise<boolean>;
}

function parseRecord(text: string, where: string): McpCredentialRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new XdogError(ErrorCodes.STORE_CORRUPT, `MCP credentials in ${where} are not JSON: ${(error as Error).message}`, { hint: 'remove them with xdog mcp logout SERVER, then log in again' });
  }
  const parsed = McpCredentialRecordSchema.safeParse(value);
  if (!parsed.success) throw new XdogError(ErrorCodes.STORE_CORRUPT, `MCP credentials in ${where} are not valid: ${parsed.error.issues[0]?.message}`, { hint: 'remove them with xdog mcp logout SERVER, then log in again' });
  return parsed.data;
}

/** One 0600 file per server in a 0700 directory. */
export class FileCredentialStore implements McpCredentialStore {
  readonly backend = 'file';
  constructor(readonly location: string) {}

  #file(server: string): string {
    return path.join(this.location, `${server}.json`);
  }

  /** The directory, made 0700; a symlink or a directory others can enter is refused. */
  #directory(create: boolean): boolean {
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(this.location);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      if (!create) return false;
      fs.mkdirSync(this.location, { recursive: true, mode: 0o700 });
      stat = fs.lstatSync(this.location);
    }
    if (!stat.isDirectory()) throw new XdogError(ErrorCodes.CONFIG_INVALID, `${this.location} is not a directory (a symlink is refused)`, { hint: 'remove it; xdog creates the directory itself' });
    if ((stat.mode & 0o077) !== 0) fs.chmodSync(this.location, 0o700);
    return true;
  }

  async load(server: string): Promise<McpCredentialRecord | undefined> {
    if (!this.#directory(false)) return undefined;
    let fd: number;
    try {
      fd = fs.openSync(this.#file(server), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return undefined;
      if (code === 'ELOOP') throw new XdogError(ErrorCodes.STORE_CORRUPT, `${this.#file(server)} is a symlink; credentials are never read through one`, { hint: 'remove it and log in again' });
      throw error;
    }
    try {
      const stat = fs.fstatSync(fd);
      if (stat.size > RECORD_BYTES) throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `${this.#file(server)} is ${stat.size} bytes, over the limit of ${RECORD_BYTES}`, { hint: 'remove it and log in again' });
      const buffer = Buffer.alloc(stat.size);
      fs.readSync(fd, buffer, 0, stat.size, 0);
      return parseRecord(buffer.toString('utf8'), this.#file(server));
    } finally {
      fs.closeSync(fd);
    }
  }

  async save(record: McpCredentialRecord): Promise<void> {
    this.#directory(true);
    const target = this.#file(record.server);
    const temp = path.join(this.location, `.${record.server}.${randomBytes(6).toString('hex')}.tmp`);
    const fd = fs.openSync(temp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o600);
    try {
      fs.writeSync(fd, JSON.stringify(record));
      fs.fsyncSync(fd);
    } catch (error) {
      fs.closeSync(fd);
      fs.rmSync(temp, { force: true });
      throw error;
    }
    fs.closeSync(fd);
    // rename replaces a symlink at the target itself, never what it points to.
    fs.renameSync(temp, target);
    syncDirectory(this.location);
  }

  async remove(server: string): Promise<boolean> {
    if (!this.#directory(false)) return false;
    try {
      fs.unlinkSync(this.#file(server));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
    syncDirectory(this.location);
    return true;
  }
}

/** An existing, unlocked Secret Service vault through `secret-tool` (libsecret-tools). */
export class SecretServiceCredentialStore implements McpCredentialStore {
  readonly backend = 'secret-service';
  readonly location = 'the Secret Service (secret-tool, attributes service=xdog-mcp username=SERVER)';

  /**
   * Refuses unless a Secret Service already owns its bus name: secret-tool on a
   * bus without one would have D-Bus start a keyring daemon, and xdog never starts one.
   */
  #running(): Promise<void> {
    return new Promise((resolve, reject) => {
      if (!process.env.DBUS_SESSION_BUS_ADDRESS) {
        return reject(new XdogError(ErrorCodes.UNAVAILABLE, 'mcp_credential_backend is secret-service, but this process has no D-Bus session (DBUS_SESSION_BUS_ADDRESS is not set)', { hint: 'run xdog inside your desktop session with an unlocked keyring, or set mcp_credential_backend: file' }));
      }
      const args = ['--session', '--print-reply', '--dest=org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus.NameHasOwner', 'string:org.freedesktop.secrets'];
      execFile('dbus-send', args, { timeout: SECRET_TOOL_SECONDS * 1000 }, (error, stdout) => {
        if ((error as NodeJS.ErrnoException | null)?.code === 'ENOENT') return reject(new XdogError(ErrorCodes.UNAVAILABLE, 'mcp_credential_backend is secret-service, but dbus-send is not installed', { hint: 'install dbus-bin (apt-get install dbus-bin), or set mcp_credential_backend: file' }));
        if (error) return reject(new XdogError(ErrorCodes.UNAVAILABLE, `cannot ask the D-Bus session for a Secret Service: ${error.message}`, { hint: 'run xdog inside your desktop session, or set mcp_credential_backend: file' }));
        if (!/boolean true/.test(stdout)) return reject(new XdogError(ErrorCodes.UNAVAILABLE, 'no Secret Service is running in this D-Bus session; xdog does not start one', { hint: 'start and unlock your keyring (e.g. log in to your desktop), or set mcp_credential_backend: file' }));
        resolve();
      });
    });
  }

  async #run(args: string[], input?: string): Promise<{ code: number; stdout: string }> {
    await this.#running();
    return new Promise((resolve, reject) => {
      const child = execFile('secret-tool', args, { timeout: SECRET_TOOL_SECONDS * 1000, maxBuffer: RECORD_BYTES, env: process.env }, (error, stdout, stderr) => {
        if (!error) return resolve({ code: 0, stdout });
        const failure = error as NodeJS.ErrnoException & { killed?: boolean; code?: number | string };
        if (failure.code === 'ENOENT') return reject(new XdogError(ErrorCodes.UNAVAILABLE, 'mcp_credential_backend is secret-service, but secret-tool is not installed', { hint: 'install libsecret-tools (apt-get install libsecret-tools), or set mcp_credential_backend: file' }));
        if (failure.killed) return reject(new XdogError(ErrorCodes.UNAVAILABLE, `secret-tool did not answer within ${SECRET_TOOL_SECONDS} s (a locked vault waits for a password prompt)`, { hint: 'unlock your keyring first; xdog never starts or unlocks one' }));
        if (typeof failure.code === 'number' && failure.code === 1 && !stderr.trim()) return resolve({ code: 1, stdout });
        reject(new XdogError(ErrorCodes.UNAVAILABLE, `secret-tool failed: ${stderr.trim() || error.message}`, { hint: 'an unlocked Secret Service vault must be running in your session; xdog never starts or unlocks one' }));
      });
      // lookup and clear exit without reading stdin: a closed pipe is not an error of theirs.
      child.stdin?.on('error', () => undefined);
      child.stdin?.end(input ?? '');
    });
  }

  async load(server: string): Promise<McpCredentialRecord | undefined> {
    const { code, stdout } = await this.#run(['lookup', 'service', 'xdog-mcp', 'username', server]);
    if (code !== 0 || !stdout) return undefined;
    return parseRecord(stdout, `the Secret Service entry of ${server}`);
  }

  async save(record: McpCredentialRecord): Promise<void> {
    await this.#run(['store', `--label=xdog MCP ${record.server}`, 'service', 'xdog-mcp', 'username', record.server], JSON.stringify(record));
  }

  async remove(server: string): Promise<boolean> {
    const existed = (await this.load(server)) !== undefined;
    if (existed) await this.#run(['clear', 'service', 'xdog-mcp', 'username', server]);
    return existed;
  }
}

/** The store `mcp_credential_backend` names, or undefined when it is not set (nothing is saved or loaded). */
export function credentialStoreOf(config: XdogConfig, env: NodeJS.ProcessEnv = process.env): McpCredentialStore | undefined {
  if (config.mcp_credential_backend === 'file') return new FileCredentialStore(path.join(stateDir(env), 'mcp-credentials'));
  if (config.mcp_credential_backend === 'secret-service') return new SecretServiceCredentialStore();
  return undefined;
}
