/**
 * One client connection as the gateway sees it. Writes never wait: when the
 * bytes queued for a client that does not read pass
 * LIMITS.clawClientBacklogBytes, the connection is closed instead, so a slow
 * client never holds up a run or another client.
 */
import type net from 'node:net';
import { createJSONRPCNotification } from 'json-rpc-2.0';
import { XdogError } from '../../../core/errors.js';
import { LIMITS } from '../../../core/limits.js';
import { encodeFrame } from './frames.js';
import { stackOf } from './rpc-errors.js';

/** How long a closing connection may take to flush its last frame before it is cut. */
const CLOSE_GRACE_MS = 1000;

/** What a method handler knows about the connection that called it. */
export interface RpcConnection {
  /** Unique for the life of the server. */
  readonly id: number;
  /** The client name given in `hello` (undefined before `hello` or when none was given). */
  readonly client: string | undefined;
  readonly closed: boolean;
  /**
   * Sends a notification. Returns false when the connection is closed, or has
   * just been closed because the client stopped reading (its backlog went
   * over LIMITS.clawClientBacklogBytes), or because the notification could
   * not be encoded at all (logged; the client reconnects and reads the state).
   * Throws LIMIT_EXCEEDED for a notification larger than one frame.
   */
  notify(method: string, params?: unknown): boolean;
  /** Runs `listener` once when the connection closes (at once if it already has); returns a disposer. */
  onClose(listener: () => void): () => void;
  close(): void;
}

/** The server's side of a connection: the public face plus the handshake state. */
export class ServerConnection implements RpcConnection {
  readonly id: number;
  client: string | undefined;
  authenticated = false;
  /** Why the connection was closed by us, for the log. */
  closeReason: string | undefined;
  readonly #socket: net.Socket;
  readonly #closeListeners = new Set<() => void>();
  readonly #log: (line: string) => void;
  #closed = false;

  /** `log` takes what fails inside the connection (a close listener, an unencodable notification). */
  constructor(id: number, socket: net.Socket, log: (line: string) => void) {
    this.id = id;
    this.#socket = socket;
    this.#log = log;
    socket.once('close', () => this.#markClosed());
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Writes one message; false when closed or when it closed the connection for its backlog. */
  send(message: unknown, what: string): boolean {
    if (this.#closed || this.#socket.destroyed) return false;
    const frame = encodeFrame(message, what);
    if (this.#socket.writableLength + frame.length > LIMITS.clawClientBacklogBytes) {
      this.closeReason = `the client stopped reading: over ${LIMITS.clawClientBacklogBytes} bytes were waiting for it`;
      this.#socket.destroy();
      this.#markClosed();
      return false;
    }
    this.#socket.write(frame);
    return true;
  }

  notify(method: string, params?: unknown): boolean {
    try {
      return this.send(createJSONRPCNotification(method, params), `the ${method} notification`);
    } catch (error) {
      if (error instanceof XdogError) throw error;
      // Not the caller's failure (a run publishing an event must go on): this client misses it, so it is told by the close.
      this.#log(`internal error encoding the ${method} notification for connection ${this.id}: ${stackOf(error)}`);
      this.close(`the ${method} notification could not be encoded`);
      return false;
    }
  }

  onClose(listener: () => void): () => void {
    if (this.#closed) {
      listener();
      return () => {};
    }
    const once = () => listener();
    this.#closeListeners.add(once);
    return () => {
      this.#closeListeners.delete(once);
    };
  }

  close(reason?: string): void {
    if (this.#closed) return;
    this.closeReason ??= reason;
    // end() flushes what is queued (an error frame, say); a client that never reads is cut after the grace.
    this.#socket.end();
    setTimeout(() => this.#socket.destroy(), CLOSE_GRACE_MS).unref();
    this.#markClosed();
  }

  /** Cuts the connection at once (server shutdown). */
  destroy(): void {
    this.#socket.destroy();
    this.#markClosed();
  }

  #markClosed(): void {
    if (this.#closed) return;
    this.#closed = true;
    const listeners = [...this.#closeListeners];
    this.#closeListeners.clear();
    for (const listener of listeners) {
      try {
        listener();
      } catch (error) {
        this.#log(`close listener of connection ${this.id} failed: ${stackOf(error)}`);
      }
    }
  }
}
