/**
 * A client of the gateway: connects to its socket, says `hello`, and then
 * calls only the methods the gateway advertised. json-rpc-2.0 correlates
 * answers with requests; this class owns the socket, the framing and the
 * rule that nothing is ever resent: a call whose answer did not arrive fails
 * with UNAVAILABLE and the caller asks for state.
 */
import net from 'node:net';
import {
  createJSONRPCErrorResponse,
  createJSONRPCRequest,
  isJSONRPCRequest,
  isJSONRPCResponse,
  JSONRPCClient,
  type JSONRPCID,
  type JSONRPCResponse,
} from 'json-rpc-2.0';
import { ErrorCodes, XdogError, describeError } from '../errors.js';
import { LIMITS } from '../limits.js';
import { NOTIFICATION_PART, decodeFrame, encodeFrame, oversizedFrameMessage } from './frames.js';
import { LineFramer } from '../line-framer.js';
import { PartAssembler } from './part-assembler.js';
import { RpcErrorCodes, fromRpcError, rpcError } from './rpc-errors.js';
import type { HelloResult } from './rpc-server.js';
import { assertSocketPathFits } from './socket-path.js';

const START_HINT = 'start it with `xdog claw gateway start`';
const ASK_FOR_STATE = 'it may or may not have run; ask the gateway for state before trying again';

export interface RpcClientOptions {
  socketPath: string;
  /** The gateway token (see readToken). */
  token: string;
  /** Who is connecting, for the gateway's log (at most LIMITS.clawClientNameChars characters). */
  client?: string;
  /** Client features to declare in `hello` (`name:version`): what this client can do for the gateway. */
  features?: readonly string[];
  protocolVersion: number;
  /** Deadline for connecting and for `hello`, in ms. */
  timeoutMs: number;
  /** The default deadline of every call, in ms (default: LIMITS.clawCallSeconds, which covers the gateway's longest wait). */
  callTimeoutMs?: number;
}

export interface CallOptions {
  /** Deadline for this call's answer (default: the client's callTimeoutMs). */
  timeoutMs?: number;
  /**
   * Cancels the call (`jobs.cancel`): a read or a wait fails with ABORTED at
   * once; a method that changes state runs on and answers as usual.
   */
  signal?: AbortSignal;
}

/**
 * Whether a `hello` answer has the shape of HelloResult. Checked by hand, not
 * with zod: every client command says hello, and loading zod for these four
 * fields was a sixth of `claw send`'s start.
 */
function isHelloResult(value: unknown): value is HelloResult {
  const hello = value as Partial<HelloResult> | null;
  const strings = (list: unknown): boolean => Array.isArray(list) && list.every((item) => typeof item === 'string');
  return (
    typeof hello === 'object' &&
    hello !== null &&
    Number.isInteger(hello.protocol) &&
    strings(hello.capabilities) &&
    strings(hello.methods) &&
    typeof hello.server === 'object' &&
    hello.server !== null &&
    Number.isInteger(hello.server.pid) &&
    typeof hello.server.version === 'string'
  );
}

function unavailable(message: string, hint?: string): XdogError {
  return new XdogError(ErrorCodes.UNAVAILABLE, message, { hint });
}

/** The error of a call whose signal was aborted before it was sent: the signal's own XdogError, else ABORTED. */
function cancelledCall(method: string, signal: AbortSignal): XdogError {
  return XdogError.is(signal.reason) ? signal.reason : new XdogError(ErrorCodes.ABORTED, `${method} was cancelled`);
}

function openSocket(socketPath: string, timeoutMs: number): Promise<net.Socket> {
  assertSocketPathFits(socketPath);
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(socketPath);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(unavailable(`the gateway at ${socketPath} did not accept the connection within ${timeoutMs} ms`, 'check it with `xdog claw gateway status`'));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      resolve(socket);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (error.code === 'ENOENT' || error.code === 'ECONNREFUSED') {
        reject(unavailable(`no gateway is running at ${socketPath}`, START_HINT));
      } else if (error.code === 'EACCES') {
        reject(unavailable(`cannot connect to the gateway at ${socketPath}: permission denied`, 'the gateway belongs to another user; start your own'));
      } else {
        reject(unavailable(`cannot connect to the gateway at ${socketPath}: ${describeError(error)}`, START_HINT));
      }
    });
  });
}

export class RpcClient {
  readonly #socket: net.Socket;
  readonly #options: RpcClientOptions;
  readonly #rpc: JSONRPCClient;
  /** Encoded frames of requests about to be sent, so each is encoded (and size-checked) once. */
  readonly #encoded = new WeakMap<object, Buffer>();
  /** Ids of calls waiting for an answer, to fail them when the connection closes. */
  readonly #pending = new Set<number>();
  readonly #listeners = new Map<string, Set<(params: unknown) => void>>();
  readonly #closeListeners = new Set<() => void>();
  /** Joins notifications the gateway sent in parts (over the frame limit). */
  readonly #parts = new PartAssembler();
  #nextId = 1;
  #closed = false;
  /** Why the connection ended when we know more than "it closed" (the gateway said, or it broke the framing). */
  #closeCause: XdogError | undefined;
  #hello: HelloResult | undefined;

  private constructor(socket: net.Socket, options: RpcClientOptions) {
    this.#socket = socket;
    this.#options = options;
    this.#rpc = new JSONRPCClient((payload: object) => this.#write(payload), () => this.#nextId++);
    const framer = new LineFramer(LIMITS.clawFrameBytes, {
      line: (line) => this.#receive(line),
      oversized: (seen) => this.#fail(unavailable(`the gateway sent a frame over the limit: ${oversizedFrameMessage(seen)}`, 'the gateway and this client may be different versions')),
    });
    socket.on('data', (chunk: Buffer) => {
      if (!this.#closed) framer.push(chunk);
    });
    socket.on('error', () => {}); // 'close' follows and fails what is pending
    socket.once('close', () => this.#markClosed());
  }

  /** Connects and says `hello`; fails with UNAVAILABLE when no gateway runs there, UNAUTHENTICATED for a wrong token. */
  static async connect(options: RpcClientOptions): Promise<RpcClient> {
    const socket = await openSocket(options.socketPath, options.timeoutMs);
    const client = new RpcClient(socket, options);
    try {
      const result = await client.#request('hello', { token: options.token, protocol: options.protocolVersion, client: options.client, ...(options.features?.length ? { features: [...options.features] } : {}) }, options.timeoutMs);
      if (!isHelloResult(result)) throw unavailable(`the gateway at ${options.socketPath} gave an invalid hello answer`, 'the gateway and this client may be different versions');
      client.#hello = result;
      return client;
    } catch (error) {
      void client.close();
      throw error;
    }
  }

  /** The gateway's `hello` answer: protocol, capabilities, methods, server pid and version. */
  get hello(): HelloResult {
    return this.#hello as HelloResult;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Calls an advertised method. A method the gateway did not advertise is
   * refused here with UNSUPPORTED and never sent. An error answer becomes the
   * XdogError the gateway raised; a lost answer becomes UNAVAILABLE, and the
   * call is never resent.
   */
  async call(method: string, params?: unknown, options: CallOptions = {}): Promise<unknown> {
    if (!this.hello.methods.includes(method)) {
      throw new XdogError(ErrorCodes.UNSUPPORTED, `the gateway does not offer ${method}`, {
        hint: 'it may be older than this client: restart it (`xdog claw gateway stop`, then `xdog claw gateway start`)',
      });
    }
    return this.#request(method, params, options.timeoutMs ?? this.#options.callTimeoutMs ?? LIMITS.clawCallSeconds * 1000, options.signal);
  }

  /** Listens to a notification; returns a disposer. A listener that throws surfaces as an uncaught exception. */
  on(method: string, listener: (params: unknown) => void): () => void {
    let listeners = this.#listeners.get(method);
    if (!listeners) this.#listeners.set(method, (listeners = new Set()));
    const own = (params: unknown) => listener(params);
    listeners.add(own);
    return () => {
      listeners.delete(own);
    };
  }

  /** Runs `listener` once when the connection closes (at once if it already has); returns a disposer. */
  onClose(listener: () => void): () => void {
    if (this.#closed) {
      listener();
      return () => {};
    }
    const own = () => listener();
    this.#closeListeners.add(own);
    return () => {
      this.#closeListeners.delete(own);
    };
  }

  /** Closes the connection (pending calls fail with UNAVAILABLE); resolves once the socket is closed. */
  close(): Promise<void> {
    const socketClosed = this.#socket.closed ? Promise.resolve() : new Promise<void>((resolve) => this.#socket.once('close', () => resolve()));
    this.#socket.destroy();
    this.#markClosed();
    return socketClosed;
  }

  async #request(method: string, params: unknown, timeoutMs: number, signal?: AbortSignal): Promise<unknown> {
    if (this.#closed) throw this.#closeCause ?? unavailable('the connection to the gateway is closed', 'connect again');
    if (signal?.aborted) throw cancelledCall(method, signal);
    const id = this.#nextId++;
    if (!signal) return this.#exchange(id, method, params, timeoutMs);
    // The gateway decides: a read or a wait is answered ABORTED at once; a change runs on and its answer comes as usual.
    const onAbort = (): void => {
      if (!this.#closed && this.hello.methods.includes('jobs.cancel')) this.#request('jobs.cancel', { id }, timeoutMs).catch(() => {});
    };
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      return await this.#exchange(id, method, params, timeoutMs);
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  async #exchange(id: number, method: string, params: unknown, timeoutMs: number): Promise<unknown> {
    const request = createJSONRPCRequest(id, method, params);
    this.#encoded.set(request, encodeFrame(request, `the ${method} request`));
    this.#pending.add(id);
    const timedOut = rpcError(RpcErrorCodes.SERVER_ERROR, ErrorCodes.UNAVAILABLE, `the gateway did not answer ${method} within ${timeoutMs} ms`, ASK_FOR_STATE);
    let response: JSONRPCResponse;
    try {
      response = await this.#rpc
        .timeout(timeoutMs, (timedOutId) => createJSONRPCErrorResponse(timedOutId, timedOut.code, timedOut.message, timedOut.data))
        .requestAdvanced(request);
    } finally {
      this.#pending.delete(id);
    }
    if (response.error) throw fromRpcError(response.error);
    return response.result;
  }

  #write(payload: object): void {
    if (this.#closed) throw unavailable('the connection to the gateway is closed', 'connect again');
    this.#socket.write(this.#encoded.get(payload) ?? encodeFrame(payload, 'the request'));
  }

  #receive(line: Buffer, whole = false): void {
    const decoded = decodeFrame(line);
    const message = decoded.ok ? decoded.value : undefined;
    if (!decoded.ok || typeof message !== 'object' || message === null || Array.isArray(message)) {
      this.#fail(unavailable(`the gateway sent a frame that is not a JSON-RPC message${decoded.ok ? '' : `: ${decoded.reason}`}`, 'the gateway and this client may be different versions'));
      return;
    }
    if (isJSONRPCResponse(message)) {
      if (message.id === null && message.error) {
        // The gateway refused something it could not tie to a request (a connection over its limit, say).
        this.#closeCause = fromRpcError(message.error);
      } else {
        this.#rpc.receive(message);
      }
      return;
    }
    if (isJSONRPCRequest(message) && message.id === undefined && typeof message.method === 'string') {
      if (message.method === NOTIFICATION_PART && !whole) {
        let joined: Buffer | undefined;
        try {
          joined = this.#parts.add(message.params);
        } catch (error) {
          this.#fail(error as XdogError);
          return;
        }
        // The joined notification is delivered as if it had come in one frame.
        if (joined) this.#receive(joined, true);
        return;
      }
      for (const listener of [...(this.#listeners.get(message.method) ?? [])]) {
        try {
          listener(message.params);
        } catch (error) {
          // A throwing listener is a bug in it: surface it as EventEmitter would, after this frame's other listeners ran.
          queueMicrotask(() => {
            throw error;
          });
        }
      }
    }
  }

  /** Ends the connection for a reason worth reporting to every pending call. */
  #fail(cause: XdogError): void {
    this.#closeCause ??= cause;
    void this.close();
  }

  #markClosed(): void {
    if (this.#closed) return;
    this.#closed = true;
    const cause = this.#closeCause;
    const lost = rpcError(
      RpcErrorCodes.SERVER_ERROR,
      cause?.code ?? ErrorCodes.UNAVAILABLE,
      cause ? cause.message : 'the connection to the gateway closed before the answer arrived',
      cause?.hint ?? ASK_FOR_STATE,
    );
    const ids: JSONRPCID[] = [...this.#pending];
    this.#pending.clear();
    this.#rpc.receive(ids.map((id) => createJSONRPCErrorResponse(id, lost.code, lost.message, lost.data)));
    const listeners = [...this.#closeListeners];
    this.#closeListeners.clear();
    for (const listener of listeners) listener();
  }
}
