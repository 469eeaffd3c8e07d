/**
 * Where the claw store lives, from a `claw.store` config section: a SQLite
 * file (the default) or a PostgreSQL database whose URL (with its password)
 * comes from the environment variable `url_env` names. The password never
 * leaves this module's PostgreSQL location except to the driver:
 * describeClawStore() is what status and logs show.
 */
import path from 'node:path';
import { ErrorCodes, XdogError, dataDir, resolveConfigPath } from '../core/index.js';

/** Where the claw store lives. */
export type ClawStoreLocation = { type: 'sqlite'; file: string } | { type: 'postgres'; url: string; urlEnv?: string };

/** The `claw.store` config section (core/config.ts ClawStoreSchema). */
export type ClawStoreConfig = { type: 'sqlite'; path?: string } | { type: 'postgres'; url_env: string };

/** `$XDG_DATA_HOME/xdog/claw/claw.db`. */
export function defaultClawStoreFile(): string {
  return path.join(dataDir(), 'claw', 'claw.db');
}

/**
 * The store location a `claw.store` config section names (default: SQLite at
 * defaultClawStoreFile()). CONFIG_INVALID when a PostgreSQL store's variable
 * is unset, empty or not a postgres:// URL.
 */
export function clawStoreLocation(store: ClawStoreConfig | undefined, env: NodeJS.ProcessEnv = process.env): ClawStoreLocation {
  if (store?.type !== 'postgres') return { type: 'sqlite', file: store?.path ? resolveConfigPath(store.path, process.cwd()) : defaultClawStoreFile() };
  const name = store.url_env;
  const url = env[name];
  const hint = `set ${name} to the database URL, e.g. ${name}=postgres://xdog:PASSWORD@db.example:5432/xdog (docs/claw-store.md)`;
  if (!url) throw new XdogError(ErrorCodes.CONFIG_INVALID, `config claw.store.url_env: the environment variable ${name} is not set or empty`, { hint });
  if (!parsePostgresUrl(url)) {
    throw new XdogError(ErrorCodes.CONFIG_INVALID, `config claw.store.url_env: the environment variable ${name} is not a postgres:// URL with a host and a database`, { hint });
  }
  return { type: 'postgres', url, urlEnv: name };
}

function parsePostgresUrl(url: string): URL | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') return undefined;
  if (!parsed.hostname || parsed.pathname.length <= 1) return undefined;
  return parsed;
}

/** The store as status and logs show it: the file, or `postgres://user@host:port/db` (never the password). */
export function describeClawStore(location: ClawStoreLocation): string {
  if (location.type === 'sqlite') return location.file;
  const url = parsePostgresUrl(location.url);
  if (!url) return 'postgres://(invalid URL)';
  const user = url.username ? `${url.username}@` : '';
  return `postgres://${user}${url.hostname}:${url.port || '5432'}${url.pathname}`;
}
