/**
 * A socket speaking raw NDJSON to a gateway, to send what a well-behaved
 * client never would (bad frames, hostile params, no hello at all).
 */
import net from 'node:net';

const open = new Set<net.Socket>();

export class RawPeer {
  readonly socket: net.Socket;
  readonly closed: Promise<void>;
  readonly #token: string;
  readonly #lines: unknown[] = [];
  readonly #waiters: Array<(value: unknown) => void> = [];
  #buffer = '';
  #ended = false;

  constructor(socket: net.Socket, token: string) {
    this.socket = socket;
    this.#token = token;
    open.add(socket);
    socket.setEncoding('utf8');
    socket.on('error', () => {});
    socket.on('data', (text: string) => {
      this.#buffer += text;
      let newline: number;
      while ((newline = this.#buffer.indexOf('\n')) !== -1) {
        const value = JSON.parse(this.#buffer.slice(0, newline));
        this.#buffer = this.#buffer.slice(newline + 1);
        const waiter = this.#waiters.shift();
        if (waiter) waiter(value);
        else this.#lines.push(value);
      }
    });
    this.closed = new Promise((resolve) =>
      socket.once('close', () => {
        open.delete(socket);
        this.#ended = true;
        for (const waiter of this.#waiters.splice(0)) waiter(undefined);
        resolve();
      }),
    );
  }

  /** Connects to `at`; `token` is what hello() sends unless told otherwise. */
  static async open(at: string, token: string): Promise<RawPeer> {
    const socket = net.createConnection(at);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    return new RawPeer(socket, token);
  }

  /** Destroys every peer still open (for afterEach). */
  static destroyAll(): void {
    for (const socket of open) socket.destroy();
    open.clear();
  }

  send(frame: unknown): void {
    this.socket.write(typeof frame === 'string' || Buffer.isBuffer(frame) ? frame : `${JSON.stringify(frame)}\n`);
  }

  /** The next frame; undefined once the connection closed; rejects after `deadlineMs`. */
  next(deadlineMs = 30_000): Promise<any> {
    if (this.#lines.length > 0) return Promise.resolve(this.#lines.shift());
    if (this.#ended) return Promise.resolve(undefined);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const at = this.#waiters.indexOf(waiter);
        if (at >= 0) this.#waiters.splice(at, 1);
        reject(new Error(`no frame within ${deadlineMs} ms`));
      }, deadlineMs);
      const waiter = (value: unknown): void => {
        clearTimeout(timer);
        resolve(value);
      };
      this.#waiters.push(waiter);
    });
  }

  async request(id: number, method: string, params?: unknown): Promise<any> {
    this.send({ jsonrpc: '2.0', id, method, params });
    return this.next();
  }

  async hello(token = this.#token, protocol = 1): Promise<any> {
    return this.request(0, 'hello', { token, protocol, client: 'raw' });
  }
}
