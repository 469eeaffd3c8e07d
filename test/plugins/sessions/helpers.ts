/** A real claw store (a SQLite file in a temp directory, or a fresh PostgreSQL database) and message builders for session-store tests. */
import path from 'node:path';
import { afterEach, expect } from 'vitest';
import type { DataSource } from 'typeorm';
import { XdogError, type AssistantMessage, type Message, type ToolResultMessage, type UserMessage } from '../../../core/index.js';
import { openClawDataSource, type ClawStoreLocation } from '../../../entities/index.js';
import { openSessionStore, type EntryInput, type SessionStore } from '../../../plugins/sessions/index.js';
import { openTestDataSource, type StoreKind } from '../../support/stores.js';
import { tempDir } from '../../support/temp.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  // Newest first: a second DataSource on a database closes before the database is dropped.
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

export interface TestStore {
  store: SessionStore;
  dataSource: DataSource;
  location: ClawStoreLocation;
  /** The SQLite file ('' on PostgreSQL). */
  file: string;
  clock: { now(): number; time: number };
  /** Another store (its own DataSource) on the same database, closed after the test. */
  reopen(): Promise<TestStore>;
}

function testClock(): TestStore['clock'] {
  return {
    time: 1_000,
    now() {
      return ++this.time;
    },
  };
}

async function storeOn(dataSource: DataSource, location: ClawStoreLocation): Promise<TestStore> {
  const clock = testClock();
  return {
    store: openSessionStore(dataSource, { clock }),
    dataSource,
    location,
    file: location.type === 'sqlite' ? location.file : '',
    clock,
    reopen: async () => {
      const again = await openClawDataSource(location);
      cleanups.push(async () => {
        if (again.isInitialized) await again.destroy();
      });
      return storeOn(again, location);
    },
  };
}

/** A fresh store of `kind` (a new SQLite file or a new PostgreSQL database), closed and dropped after the test. */
export async function openTestStoreOn(kind: StoreKind): Promise<TestStore> {
  const opened = await openTestDataSource(kind);
  cleanups.push(opened.close);
  return storeOn(opened.dataSource, opened.location);
}

/** A SQLite store on `file` (default: a new file in a temp directory). */
export async function openTestStore(file = path.join(tempDir(), 'claw', 'claw.db')): Promise<TestStore> {
  const location: ClawStoreLocation = { type: 'sqlite', file };
  const dataSource = await openClawDataSource(location);
  cleanups.push(async () => {
    if (dataSource.isInitialized) await dataSource.destroy();
  });
  return storeOn(dataSource, location);
}

export function user(text: string): UserMessage {
  return { role: 'user', content: text, timestamp: 1 };
}

export function assistant(text: string, calls: { id: string; name: string }[] = []): AssistantMessage {
  return {
    role: 'assistant',
    content: [...(text ? [{ type: 'text' as const, text }] : []), ...calls.map((call) => ({ type: 'toolCall' as const, id: call.id, name: call.name, arguments: {} }))],
    model: 'faux/test',
    usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
    stopReason: calls.length ? 'toolUse' : 'stop',
    timestamp: 1,
  };
}

export function toolResult(id: string, name: string, text: string): ToolResultMessage {
  return { role: 'toolResult', toolCallId: id, toolName: name, content: [{ type: 'text', text }], isError: false, timestamp: 1 };
}

export function msg(message: Message): EntryInput {
  return { kind: 'message', payload: { message } };
}

/** The texts of messages, for compact assertions ("u:hi", "a:hello", "r:ls=out"). */
export function texts(messages: readonly Message[]): string[] {
  return messages.map((message) => {
    if (message.role === 'user') return `u:${typeof message.content === 'string' ? message.content : message.content.map((p) => (p.type === 'text' ? p.text : '')).join('')}`;
    if (message.role === 'assistant') {
      return `a:${message.content.map((p) => (p.type === 'text' ? p.text : p.type === 'toolCall' ? `[${p.id}]` : '')).join('')}`;
    }
    return `r:${message.toolCallId}=${message.content.map((p) => (p.type === 'text' ? p.text : '')).join('')}`;
  });
}

/** A group "main" with one active session holding `entries`. */
export async function sessionWith(store: SessionStore, entries: EntryInput[]): Promise<string> {
  await store.ensureGroup('main');
  const group = await store.getGroup('main');
  const session = await store.createSession('main', { model: 'faux/test', activate: true }, { expectedActiveSessionId: group.activeSessionId });
  if (entries.length) await store.append(session.id, entries);
  return session.id;
}

/** The XdogError a promise rejects with (fails the test when it resolves or rejects with something else). */
export async function failure(promise: Promise<unknown>): Promise<XdogError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(XdogError.is(error), String(error)).toBe(true);
  return error as XdogError;
}

/** Calls `counted` for every ROLLBACK a runner of `dataSource` sends: a re-run transaction, or one that failed. */
export function countRollbacks(dataSource: DataSource, counted: () => void): void {
  const create = dataSource.createQueryRunner.bind(dataSource);
  dataSource.createQueryRunner = (...args) => {
    const runner = create(...args);
    const query = runner.query.bind(runner);
    runner.query = ((text: string, ...rest: unknown[]) => {
      if (text === 'ROLLBACK') counted();
      return (query as (...all: unknown[]) => Promise<unknown>)(text, ...rest);
    }) as typeof runner.query;
    return runner;
  };
}
