/**
 * A child's stored transcript as `agents.source` serves it: JSONL, a header
 * line `{"type":"xdog.claw.child-source","version":1,"child":{id,status}}`
 * and then one message per line, read in chunks of one snapshot
 * (core/rpc/chunked-snapshots.ts) so its size is bounded by
 * LIMITS.childSourceBytes instead of one answer.
 */
import { ErrorCodes, XdogError, type Message } from '../../core/index.js';

export const CHILD_SOURCE_FORMAT = 'xdog.claw.child-source';
export const CHILD_SOURCE_VERSION = 1;

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
