/**
 * The diagnostics bundle of `xdog claw doctor` (alias `xdog bug-report`):
 * versions, the config with secrets redacted, the gateway's status, the last
 * log lines, the store's integrity and sizes, the slowest recent runs. It is
 * made for a person to attach to an issue, so everything in it passes
 * through the credential redaction (the values of the environment variables
 * the config names, secret-named keys, credential shapes), and the file is
 * created 0600, never over an existing one.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { ErrorCodes, XdogError, describeError } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';
import { configSecrets, environmentSecrets, redact } from '../../core/redact.js';
import type { XdogConfig } from '../../core/config.js';

export interface DiagnosticsInput {
  config: XdogConfig;
  configFile?: string;
  /** The gateway's status and recent runs, or why they could not be read. */
  gateway: { status?: unknown; runs?: Array<{ group: string; status: string; startedAt: number; endedAt: number; sessionId: string }>; error?: string };
  logFile: string;
  store: { type: 'sqlite'; file: string } | { type: 'postgres'; described: string };
}

export interface DiagnosticsBundle {
  createdAt: string;
  versions: Record<string, string>;
  config: unknown;
  gateway: unknown;
  log: { file: string; lines: string[]; omittedBytes: number } | { file: string; error: string };
  store: unknown;
  slowestRuns: unknown[];
}

/** Config values under keys whose names say they are secret are replaced outright (redaction then covers the rest). */
function maskConfig(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) return value.map((item) => maskConfig(item, key));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([child, item]) => [child, maskConfig(item, child)]));
  if (typeof value === 'string' && /(key|token|secret|password|passwd|credentials?|authorization|cookie)$/i.test(key.replace(/[-_]/g, '')) && !/_env$/i.test(key)) return '[redacted]';
  return value;
}

function versions(): Record<string, string> {
  const require = createRequire(import.meta.url);
  const own = require('../../../package.json') as { version: string };
  const out: Record<string, string> = { xdog: own.version, node: process.version, platform: `${os.platform()} ${os.release()} ${os.arch()}` };
  for (const name of ['@opentelemetry/api', '@modelcontextprotocol/sdk', 'typeorm', 'better-sqlite3']) {
    try {
      out[name] = (require(`${name}/package.json`) as { version: string }).version;
    } catch {
      out[name] = 'not installed';
    }
  }
  return out;
}

/** The last lines of the gateway log, read from its end within the byte bound. */
function logTail(file: string): DiagnosticsBundle['log'] {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (error) {
    return { file, error: describeError(error) };
  }
  try {
    const size = fs.fstatSync(fd).size;
    const length = Math.min(size, LIMITS.diagnosticsLogBytes);
    const buffer = Buffer.alloc(length);
    fs.readSync(fd, buffer, 0, length, size - length);
    const lines = buffer.toString('utf8').split('\n').filter(Boolean);
    const kept = lines.slice(-LIMITS.diagnosticsLogLines);
    return { file, lines: kept, omittedBytes: size - length };
  } finally {
    fs.closeSync(fd);
  }
}

/** Integrity and sizes of a SQLite store, opened read-only (a running gateway keeps writing meanwhile). */
function sqliteReport(file: string): unknown {
  if (!fs.existsSync(file)) return { type: 'sqlite', file, exists: false };
  const sizes = Object.fromEntries(['', '-wal', '-shm'].map((suffix) => [`bytes${suffix || ''}`, fs.statSync(file + suffix, { throwIfNoEntry: false })?.size ?? 0]));
  type Statement = { all(): unknown[]; get(): unknown };
  type Database = { pragma(sql: string): unknown; prepare(sql: string): Statement; close(): void };
  const Sqlite = createRequire(import.meta.url)('better-sqlite3') as new (file: string, options: Record<string, unknown>) => Database;
  const db = new Sqlite(file, { readonly: true, fileMustExist: true, timeout: 5000 });
  try {
    const check = (db.pragma('quick_check') as Array<{ quick_check: string }>).map((row) => row.quick_check);
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as Array<{ name: string }>).map((row) => row.name);
    const rows = Object.fromEntries(tables.map((name) => [name, (db.prepare(`SELECT count(*) AS n FROM "${name.replace(/"/g, '""')}"`).get() as { n: number }).n]));
    return { type: 'sqlite', file, ...sizes, integrity: check.join('; '), rows };
  } finally {
    db.close();
  }
}

export async function collectDiagnostics(input: DiagnosticsInput): Promise<DiagnosticsBundle> {
  let store: unknown;
  try {
    store = input.store.type === 'sqlite' ? sqliteReport(input.store.file) : { type: 'postgres', database: input.store.described, note: 'sizes and integrity: ask the database administrator (pg_database_size, amcheck)' };
  } catch (error) {
    store = { ...input.store, error: describeError(error) };
  }
  const slowestRuns = [...(input.gateway.runs ?? [])]
    .map((run) => ({ group: run.group, sessionId: run.sessionId, status: run.status, durationMs: run.endedAt - run.startedAt, startedAt: new Date(run.startedAt).toISOString() }))
    .sort((a, b) => b.durationMs - a.durationMs)
    .slice(0, LIMITS.diagnosticsSlowRuns);
  return {
    createdAt: new Date().toISOString(),
    versions: versions(),
    config: { file: input.configFile ?? null, values: maskConfig(input.config) },
    gateway: input.gateway.error ? { running: false, error: input.gateway.error } : { running: true, status: input.gateway.status },
    log: logTail(input.logFile),
    store,
    slowestRuns,
  };
}

/** The bundle as text with every secret the config and environment lead to redacted. */
export function bundleText(bundle: DiagnosticsBundle, config: XdogConfig, env: NodeJS.ProcessEnv = process.env): string {
  const secrets = [...new Set([...configSecrets(config, env), ...environmentSecrets(env)])].sort((a, b) => b.length - a.length);
  return `${redact(JSON.stringify(bundle, null, 2), secrets)}\n`;
}

/** Writes the bundle to a new 0600 file; refuses to overwrite. */
export function writeBundle(file: string, text: string): void {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new XdogError(ErrorCodes.CONFLICT, `${file} already exists`, { hint: 'pass another --output, or remove it' });
    throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `cannot create ${file}: ${describeError(error)}`, { hint: 'pass an --output in a writable directory' });
  }
  try {
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
