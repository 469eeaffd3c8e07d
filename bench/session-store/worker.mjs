/**
 * One measurement in a fresh process: `node worker.mjs <task> <dir>`, printing
 * one JSON line. Tasks: setup, open-xdog, open-pi, appends-xdog, appends-raw.
 * Modules are imported before the clock starts; the timed part is opening the
 * stored session and building its model context (xdog: open the store with
 * its integrity check + context(); pi: SessionManager.open + buildSessionContext),
 * then a second context() / buildSessionContext() on what is open.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { ENTRIES, message, toXdog } from './workload.mjs';

const [task, dir, countArg] = process.argv.slice(2);
// BENCH_ROOT: another checkout or copy to measure (a Node 24 run needs one whose better-sqlite3 is built for it, see README).
const root = process.env.BENCH_ROOT ? new URL(`file://${path.resolve(process.env.BENCH_ROOT)}/`) : new URL('../../', import.meta.url);
const requireFromRoot = createRequire(new URL('package.json', root));
const { openClawDataSource } = await import(new URL('dist/entities/index.js', root).href);
const { openSessionStore } = await import(new URL('dist/plugins/sessions/index.js', root).href);
// pi 1.6 (@earendil-works) by default; BENCH_PI=0.73 measures the older @mariozechner line kept for history.
const { SessionManager } = await import(process.env.BENCH_PI === '0.73' ? '@mariozechner/pi-coding-agent' : '@earendil-works/pi-coding-agent');

const xdogFile = path.join(dir, 'xdog', 'claw.db');
const piDir = path.join(dir, 'pi');
const out = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);

async function setup() {
  fs.mkdirSync(piDir, { recursive: true });
  const manager = SessionManager.create(dir, piDir);
  for (let i = 0; i < ENTRIES; i++) manager.appendMessage(message(i));
  const piFile = manager.getSessionFile();

  const dataSource = await openClawDataSource({ type: 'sqlite', file: xdogFile });
  const store = openSessionStore(dataSource);
  await store.ensureGroup('bench');
  const session = await store.createSession('bench', { model: 'openai/gpt-5.1' });
  const batch = 1000;
  for (let i = 0; i < ENTRIES; i += batch) {
    const entries = [];
    for (let j = i; j < Math.min(ENTRIES, i + batch); j++) entries.push({ kind: 'message', payload: { message: toXdog(message(j)) } });
    await store.append(session.id, entries);
  }
  await dataSource.destroy();
  out({ node: process.version, piFile, sessionId: session.id, piBytes: fs.statSync(piFile).size, xdogBytes: fs.statSync(xdogFile).size });
}

async function openXdog(sessionId) {
  const start = performance.now();
  const dataSource = await openClawDataSource({ type: 'sqlite', file: xdogFile });
  const store = openSessionStore(dataSource);
  const context = await store.context(sessionId);
  const ms = performance.now() - start;
  const warmStart = performance.now();
  await store.context(sessionId);
  const warmMs = performance.now() - warmStart;
  await dataSource.destroy();
  out({ ms, warmMs, messages: context.messages.length });
}

function openPi(piFile) {
  const start = performance.now();
  const manager = SessionManager.open(piFile, piDir);
  const context = manager.buildSessionContext();
  const ms = performance.now() - start;
  const warmStart = performance.now();
  manager.buildSessionContext();
  const warmMs = performance.now() - warmStart;
  out({ ms, warmMs, messages: context.messages.length });
}

/** Durable appends through the store: one entry per transaction. */
async function appendsXdog(count) {
  const dataSource = await openClawDataSource({ type: 'sqlite', file: path.join(dir, 'appends', `xdog-${process.pid}.db`) });
  const store = openSessionStore(dataSource);
  await store.ensureGroup('bench');
  const session = await store.createSession('bench', { model: 'openai/gpt-5.1' });
  const start = performance.now();
  for (let i = 0; i < count; i++) await store.append(session.id, [{ kind: 'message', payload: { message: toXdog(message(i)) } }]);
  const ms = performance.now() - start;
  await dataSource.destroy();
  out({ perSecond: (count / ms) * 1000 });
}

/** The floor: raw better-sqlite3 commits (same pragmas), one INSERT per transaction. */
function appendsRaw(count) {
  const Database = requireFromRoot('better-sqlite3');
  fs.mkdirSync(path.join(dir, 'appends'), { recursive: true });
  const db = new Database(path.join(dir, 'appends', `raw-${process.pid}.db`), { timeout: 5000 });
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.exec('CREATE TABLE entries (id INTEGER PRIMARY KEY AUTOINCREMENT, parent_id INTEGER, payload TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO entries (parent_id, payload) VALUES (?, ?)');
  const commit = db.transaction((parent, payload) => insert.run(parent, payload).lastInsertRowid);
  let parent = null;
  const start = performance.now();
  for (let i = 0; i < count; i++) parent = commit(parent, JSON.stringify({ message: toXdog(message(i)) }));
  const ms = performance.now() - start;
  db.close();
  out({ perSecond: (count / ms) * 1000 });
}

const count = Number(countArg ?? 500);
if (task === 'setup') await setup();
else if (task === 'open-xdog') await openXdog(countArg);
else if (task === 'open-pi') openPi(countArg);
else if (task === 'appends-xdog') await appendsXdog(count);
else if (task === 'appends-raw') appendsRaw(count);
else throw new Error(`unknown task ${task}`);
