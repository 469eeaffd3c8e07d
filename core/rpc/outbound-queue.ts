/**
 * What the gateway writes to one client, in order, without ever waiting for
 * it. Up to LIMITS.clawClientWriteAheadBytes go to the socket at once; the
 * rest waits here until the socket drains. While a client is behind, a run
 * of mergeable notifications (stream deltas of one kind) becomes one
 * notification carrying their joined text, so the text stays exact and a
 * client reading at full speed catches up instead of being cut. A
 * notification over the frame limit waits as its encoded bytes and goes out
 * as `notification.part` frames (docs/protocol.md, "Large notifications").
 *
 * Only a client that stops reading is cut: when the frames and merged text
 * waiting for it pass LIMITS.clawClientBacklogBytes, or the notifications
 * waiting in parts pass LIMITS.clawClientPartsBacklogBytes.
 */
import type net from 'node:net';
import { createJSONRPCNotification } from 'json-rpc-2.0';
import { describeError } from '../errors.js';
import { LIMITS } from '../limits.js';
import { NOTIFICATION_PART, encodeJson, withNewline, type NotificationPart } from './frames.js';

/**
 * A notification that may merge with the one queued before it: those with
 * the same method and `key` join their `text`, and `build` makes the params
 * of the joined text.
 */
export interface Mergeable {
  key: string;
  text: string;
  build(text: string): unknown;
}

type Waiting =
  | { kind: 'frame'; bytes: Buffer }
  | { kind: 'merged'; method: string; key: string; texts: string[]; bytes: number; build(text: string): unknown }
  | { kind: 'parts'; json: Buffer; offset: number; id: number };

/**
 * Notifications over the frame limit, encoded once for every connection that
 * sends them (subscribers of a group get the same params object).
 */
const largeJson = new WeakMap<object, { method: string; json: Buffer }>();

function notificationJson(method: string, params: unknown): Buffer {
  const key = typeof params === 'object' && params !== null ? params : undefined;
  const cached = key && largeJson.get(key);
  if (cached && cached.method === method) return cached.json;
  const json = encodeJson(createJSONRPCNotification(method, params));
  if (key && json.length > LIMITS.clawFrameBytes) largeJson.set(key, { method, json });
  return json;
}

export class OutboundQueue {
  readonly #socket: net.Socket;
  /** Cuts the connection; `reason` goes to the gateway log. */
  readonly #cut: (reason: string) => void;
  #waiting: Waiting[] = [];
  #head = 0;
  /** Bytes of frames and merged text waiting here. */
  #frameBytes = 0;
  /** Bytes of notifications waiting to go out in parts. */
  #partBytes = 0;
  #nextPartId = 1;

  constructor(socket: net.Socket, cut: (reason: string) => void) {
    this.#socket = socket;
    this.#cut = cut;
    socket.on('drain', () => this.#pump());
  }

  /** Queues one encoded frame (an answer); false when the connection was cut for its backlog. */
  frame(bytes: Buffer): boolean {
    this.#push({ kind: 'frame', bytes });
    this.#frameBytes += bytes.length;
    return this.#checked();
  }

  /** Queues a notification, merged into the one before it when the client is behind; false when the connection was cut. */
  notification(method: string, params: unknown, mergeable?: Mergeable): boolean {
    if (mergeable && this.#behind()) return this.#merge(method, mergeable);
    let json: Buffer;
    try {
      json = notificationJson(method, params);
    } catch (error) {
      // The client would miss it without knowing: it is cut and asks for state, as after any disconnect.
      this.#cut(`a ${method} notification could not be encoded (${describeError(error)})`);
      return false;
    }
    return this.#queueJson(method, json) && this.#checked();
  }

  /** Hands everything waiting to the socket (the connection is about to end). */
  writeAll(): void {
    this.#pump(Infinity);
  }

  /** Drops what waits (the connection closed). */
  clear(): void {
    this.#waiting = [];
    this.#head = 0;
    this.#frameBytes = 0;
    this.#partBytes = 0;
  }

  /** Behind: something waits here, or the socket holds its write-ahead already. */
  #behind(): boolean {
    return this.#head < this.#waiting.length || this.#socket.writableLength >= LIMITS.clawClientWriteAheadBytes;
  }

  #merge(method: string, mergeable: Mergeable): boolean {
    const added = Buffer.byteLength(mergeable.text);
    const tail = this.#head < this.#waiting.length ? this.#waiting.at(-1) : undefined;
    if (tail?.kind === 'merged' && tail.method === method && tail.key === mergeable.key && tail.bytes + added <= LIMITS.clawMergedDeltaBytes) {
      tail.texts.push(mergeable.text);
      tail.bytes += added;
      tail.build = mergeable.build;
    } else {
      this.#push({ kind: 'merged', method, key: mergeable.key, texts: [mergeable.text], bytes: added, build: mergeable.build });
    }
    this.#frameBytes += added;
    return this.#checked();
  }

  /** Queues encoded JSON as one frame, or in parts when it is over the frame limit; false when it cut the connection. */
  #queueJson(method: string, json: Buffer, at?: number): boolean {
    let item: Waiting;
    if (json.length <= LIMITS.clawFrameBytes) {
      item = { kind: 'frame', bytes: withNewline(json, `the ${method} notification`) };
      this.#frameBytes += item.bytes.length;
    } else if (json.length <= LIMITS.clawNotificationBytes) {
      item = { kind: 'parts', json, offset: 0, id: this.#nextPartId++ };
      this.#partBytes += json.length;
    } else {
      this.#cut(`a ${method} notification of ${json.length} bytes is over the ${LIMITS.clawNotificationBytes}-byte limit of one notification, so the client would miss it`);
      return false;
    }
    if (at === undefined) this.#push(item);
    else this.#waiting[at] = item;
    return true;
  }

  #push(item: Waiting): void {
    this.#waiting.push(item);
  }

  /** Cuts a client that stopped reading; else writes what the socket takes now. */
  #checked(): boolean {
    const frames = this.#frameBytes + this.#socket.writableLength;
    if (frames > LIMITS.clawClientBacklogBytes) {
      this.#cut(`the client stopped reading: ${frames} bytes were waiting for it, over the ${LIMITS.clawClientBacklogBytes}-byte backlog limit`);
      return false;
    }
    if (this.#partBytes > LIMITS.clawClientPartsBacklogBytes) {
      this.#cut(`the client stopped reading: ${this.#partBytes} bytes of large notifications were waiting for it, over the ${LIMITS.clawClientPartsBacklogBytes}-byte limit`);
      return false;
    }
    this.#pump();
    return true;
  }

  /** Writes while the socket holds less than its write-ahead; the socket's 'drain' calls it again. */
  #pump(writeAhead: number = LIMITS.clawClientWriteAheadBytes): void {
    while (this.#head < this.#waiting.length && !this.#socket.destroyed && this.#socket.writableLength < writeAhead) {
      const item = this.#waiting[this.#head]!;
      if (item.kind === 'frame') {
        this.#frameBytes -= item.bytes.length;
        this.#head++;
        this.#socket.write(item.bytes);
      } else if (item.kind === 'merged') {
        this.#frameBytes -= item.bytes;
        const params = item.build(item.texts.join(''));
        if (!this.#queueJson(item.method, notificationJson(item.method, params), this.#head)) return;
      } else {
        this.#writePart(item);
      }
    }
    if (this.#head === this.#waiting.length) this.clear();
    else if (this.#head > 1024 && this.#head * 2 > this.#waiting.length) {
      this.#waiting = this.#waiting.slice(this.#head);
      this.#head = 0;
    }
  }

  #writePart(item: Extract<Waiting, { kind: 'parts' }>): void {
    const end = Math.min(item.json.length, item.offset + LIMITS.clawNotificationPartBytes);
    const part: NotificationPart = { id: item.id, offset: item.offset, totalBytes: item.json.length, data: item.json.subarray(item.offset, end).toString('base64'), last: end === item.json.length };
    this.#partBytes -= end - item.offset;
    item.offset = end;
    if (part.last) this.#head++;
    this.#socket.write(withNewline(encodeJson(createJSONRPCNotification(NOTIFICATION_PART, part)), 'a notification part'));
  }
}
