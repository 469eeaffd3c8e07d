/**
 * The private JSON-RPC 2.0 channel between the host and one extension worker:
 * json-rpc-2.0 (the gateway's library) in both directions, NDJSON over the
 * worker's stdin/stdout, every frame bounded by LIMITS.extensionFrameBytes
 * with the shared line framer. A frame that is over the limit, not JSON, or
 * not JSON-RPC breaks the channel: the owner is told once, and quarantines.
 */
import type { Readable, Writable } from 'node:stream';
import { JSONRPCClient, JSONRPCServer, JSONRPCServerAndClient, isJSONRPCRequest, isJSONRPCResponse } from 'json-rpc-2.0';
import { ErrorCodes, XdogError } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';
import { LineFramer } from '../../core/line-framer.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** One frame's bytes; LIMIT_EXCEEDED when the message is over the frame limit (nothing is sent). */
export function encodeChannelFrame(message: unknown): Buffer {
  const bytes = Buffer.from(JSON.stringify(message), 'utf8');
  if (bytes.length > LIMITS.extensionFrameBytes) {
    throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `an extension message is ${bytes.length} bytes, over the ${LIMITS.extensionFrameBytes}-byte frame limit`, {
      hint: 'send less at once',
    });
  }
  return Buffer.concat([bytes, Buffer.from('\n')]);
}

export class Channel {
  readonly peer: JSONRPCServerAndClient;
  #broken = false;
  readonly #onBroken: (reason: string) => void;

  constructor(input: Readable, output: Writable, onBroken: (reason: string) => void) {
    this.#onBroken = onBroken;
    const send = (message: unknown): void => {
      if (this.#broken || output.destroyed) return;
      output.write(encodeChannelFrame(message));
    };
    // Failed methods are answered to the peer; nothing is logged here.
    this.peer = new JSONRPCServerAndClient(new JSONRPCServer({ errorListener: () => undefined }), new JSONRPCClient((request) => send(request)), { errorListener: () => undefined });
    const framer = new LineFramer(LIMITS.extensionFrameBytes, {
      line: (line) => this.#receive(line),
      oversized: (seen) => this.break(`a frame went over the ${LIMITS.extensionFrameBytes}-byte limit (${seen} bytes seen)`),
    });
    input.on('data', (chunk: Buffer) => framer.push(chunk));
    input.on('error', () => undefined);
    output.on('error', () => undefined);
  }

  get broken(): boolean {
    return this.#broken;
  }

  /** Marks the channel broken (once), fails every pending request, and tells the owner. */
  break(reason: string): void {
    if (this.#broken) return;
    this.#broken = true;
    this.peer.rejectAllPendingRequests(`the extension channel is closed: ${reason}`);
    this.#onBroken(reason);
  }

  #receive(line: Buffer): void {
    let message: unknown;
    try {
      message = JSON.parse(utf8.decode(line));
    } catch {
      this.break('a frame was not valid UTF-8 JSON');
      return;
    }
    if (!isJSONRPCRequest(message) && !isJSONRPCResponse(message)) {
      this.break('a frame was not a JSON-RPC 2.0 message');
      return;
    }
    void this.peer.receiveAndSend(message, undefined, undefined).catch((error: unknown) => {
      if (XdogError.is(error, ErrorCodes.LIMIT_EXCEEDED)) this.break(error.message);
    });
  }
}
