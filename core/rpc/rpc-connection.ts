/**
 * One client connection as the gateway sees it. Writes never wait: they go
 * through the connection's OutboundQueue, which merges stream deltas for a
 * client that falls behind, sends notifications over the frame limit in
 * parts, and cuts a client that stops reading, so a slow client never holds
 * up a run or another client and what a client watches never changes what
 * runs.
 */
import type net from 'node:net';
import { ConnectionJobs } from './connection-jobs.js';
import { encodeFrame } from './frames.js';
import { OutboundQueue, type Mergeable } from './outbound-queue.js';
import { stackOf } from './rpc-errors.js';

export type { Mergeable } from './outbound-queue.js';

/** How long a closing connection may take to flush its last frame before it is cut. */
const CLOSE_GRACE_MS = 1000;

/** What a method handler knows about the connection that called it. */
export interface RpcConnection {
  /** Unique for the life of the server. */
  readonly id: number;
  /** The client name given in `hello` (undefined before `hello` or when none was given). */
  readonly client: string | undefined;
  /** The client features declared in `hello` (`name:version`, e.g. "mcp-elicitation:1"): what this client can do for the gateway. */
  readonly features: ReadonlySet<string>;
  readonly closed: boolean;
  /**
   * Sends a notification; never throws. One over the frame limit goes in
   * parts; a `mergeable` one joins the one queued before it while the client
   * is behind. Returns false when the connection is closed, or has just been
   * cut (the client stopped reading, or the notification could not be sent:
   * the reason goes to the gateway log).
   */
  notify(method: string, params?: unknown, mergeable?: Mergeable): boolean;
  /** Runs `listener` once when the connection closes (at once if it already has); returns a disposer. */
  onClose(listener: () => void): () => void;
  close(): void;
}

/** The server's side of a connection: the public face plus the handshake state. */
export class ServerConnection implements RpcConnection {
  readonly id: number;
  client: string | undefined;
  features: ReadonlySet<string> = new Set();
  authenticated = false;
  /** Why the connection was closed by us, for the log. */
  closeReason: string | undefined;
  /** Its running requests (`jobs.list`, `jobs.cancel`). */
  readonly jobs = new ConnectionJobs();
  readonly #socket: net.Socket;
  readonly #closeListeners = new Set<() => void>();
  readonly #log: (line: string) => void;
  readonly #queue: OutboundQueue;
  #closed = false;

  /** `log` takes what fails inside the connection (a close listener, an unencodable notification). */
  constructor(id: number, socket: net.Socket, log: (line: string) => void) {
    this.id = id;
    this.#socket = socket;
    this.#log = log;
    this.#queue = new OutboundQueue(socket, (reason) => this.#cut(reason));
    socket.once('close', () => this.#markClosed());
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Writes one message (an answer); false when closed or when it cut the connection for its backlog. Throws LIMIT_EXCEEDED for one over the frame limit. */
  send(message: unknown, what: string): boolean {
    if (this.#closed || this.#socket.destroyed) return false;
    return this.#queue.frame(encodeFrame(message, what));
  }

  notify(method: string, params?: unknown, mergeable?: Mergeable): boolean {
    if (this.#closed || this.#socket.destroyed) return false;
    return this.#queue.notification(method, params, mergeable);
  }

  /** Ends the connection at once for `reason`, logged with who the client is. */
  #cut(reason: string): void {
    this.closeReason ??= `${reason} (client ${this.client === undefined ? 'without a name' : JSON.stringify(this.client)})`;
    this.#socket.destroy();
    this.#markClosed();
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
    this.#queue.writeAll();
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
    this.#queue.clear();
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
