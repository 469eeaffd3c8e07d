/**
 * A child's stored transcript as `agents.source` serves it: JSONL, a header
 * line `{"type":"xdog.claw.child-source","version":1,"child":{id,status}}`
 * and then one message per line, read in chunks of one snapshot
 * (core/rpc/chunked-snapshots.ts) so its size is bounded by
 * LIMITS.childSourceBytes instead of one answer.
 */
import { ErrorCodes, XdogError, type ImageContent, type Message } from '../../core/index.js';
import type { ChildInputRecord } from './child-records.js';

export const CHILD_SOURCE_FORMAT = 'xdog.claw.child-source';
export const CHILD_SOURCE_VERSION = 1;
export const CHILD_INPUT_FORMAT = 'xdog.claw.child-input';
export const CHILD_INPUT_VERSION = 1;

/** One journaled input whole, images included, as `agents.input_source` serves it (so a removed one can go back to its author). */
export interface ChildInputSource {
  child: string;
  input: Omit<ChildInputRecord, 'images'> & { images: ImageContent[] };
}

export function childInputBytes(source: ChildInputSource): Buffer {
  return Buffer.from(JSON.stringify({ type: CHILD_INPUT_FORMAT, version: CHILD_INPUT_VERSION, ...source }));
}

/** Parses verified `agents.input_source` bytes (a client's side). */
export function parseChildInput(bytes: Buffer): ChildInputSource {
  const parsed = JSON.parse(bytes.toString('utf8')) as { type?: string; version?: number } & Partial<ChildInputSource>;
  if (parsed.type !== CHILD_INPUT_FORMAT || parsed.version !== CHILD_INPUT_VERSION || typeof parsed.child !== 'string' || !parsed.input) {
    throw new XdogError(ErrorCodes.UNSUPPORTED, `the child's input is not ${CHILD_INPUT_FORMAT} version ${CHILD_INPUT_VERSION}`, { hint: 'run a gateway of the same xdog version as this client' });
  }
  return { child: parsed.child, input: parsed.input };
}

export interface ChildSource {
  id: string;
  status: string;
  messages: Message[];
}

export function childSourceBytes(source: ChildSource): Buffer {
  const lines = [JSON.stringify({ type: CHILD_SOURCE_FORMAT, version: CHILD_SOURCE_VERSION, child: { id: source.id, status: source.status } }), ...source.messages.map((message) => JSON.stringify(message))];
  return Buffer.from(`${lines.join('\n')}\n`);
}

/** Parses verified `agents.source` bytes (a client's side). */
export function parseChildSource(bytes: Buffer): ChildSource {
  const [head, ...rest] = bytes.toString('utf8').split('\n').filter(Boolean);
  const header = JSON.parse(head ?? 'null') as { type?: string; version?: number; child?: { id: string; status: string } } | null;
  if (header?.type !== CHILD_SOURCE_FORMAT || header.version !== CHILD_SOURCE_VERSION || !header.child) {
    throw new XdogError(ErrorCodes.UNSUPPORTED, `the child's source is not ${CHILD_SOURCE_FORMAT} version ${CHILD_SOURCE_VERSION}`, { hint: 'run a gateway of the same xdog version as this client' });
  }
  return { id: header.child.id, status: header.child.status, messages: rest.map((line) => JSON.parse(line) as Message) };
}
