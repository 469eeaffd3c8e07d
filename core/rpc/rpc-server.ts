/**
 * The gateway's JSON-RPC server on a Unix socket. json-rpc-2.0 dispatches
 * requests and shapes responses; this class owns the socket, the NDJSON
 * framing, the `hello` handshake and the limits. A bad frame or a failing
 * handler is answered on its own connection and never touches another one.
 * Nothing one request or notification does can end the process: an exception
 * while reading, handling or encoding it becomes an error answer to that
 * request (INTERNAL, logged with its stack).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import {
  createJSONRPCErrorResponse,
  createJSONRPCSuccessResponse,
  isJSONRPCID,
  JSONRPCServer,
  type JSONRPCError,
  type JSONRPCErrorResponse,
  type JSONRPCID,
  type JSONRPCRequest,
  type JSONRPCResponse,
} from 'json-rpc-2.0';
import { z } from 'zod';
import { ErrorCodes, XdogError, describeError } from '../errors.js';
import { LIMITS } from '../limits.js';
import { decodeFrame, oversizedFrameMessage } from './frames.js';
import { LineFramer } from '../line-framer.js';
import { untilCancelled, type RpcJob } from './connection-jobs.js';
import { ServerConnection, type RpcConnection } from './rpc-connection.js';
import { RpcErrorCodes, rpcError, stackOf, toRpcError } from './rpc-errors.js';
import { ensurePrivateDir } from './private-files.js';
import { assertSocketPathFits, probeSocket } from './socket-path.js';

/**
 * A method handler. Requests on one connection run concurrently; each is a job
 * of its connection whose signal fires when the client cancels it or leaves.
 */
export type RpcHandler = (params: unknown, connection: RpcConnection, job: RpcJob) => Promise<unknown>;

/** Methods the transport answers itself, so a busy gateway still serves them. */
const TRANSPORT_METHODS = ['hello', 'ping', 'jobs.list', 'jobs.cancel'] as const;

const JobCancelParamsSchema = z.object({ id: z.union([z.string().max(256), z.number()]).optional() }).strict();

/** A notification is no job: nothing can cancel it and nobody waits for its answer. */
const NOTIFICATION_JOB: RpcJob = { signal: new AbortController().signal };

export interface RpcServerOptions {
  socketPath: string;
  /** The token `hello` must carry (see readOrCreateToken). */
  token: string;
  /** The protocol version; a client speaking another one is refused. */
  protocolVersion: number;
  /** Capability flags `hello` advertises. */
  capabilities: string[];
  /** The methods besides `hello`; `hello` advertises their names. */
  methods: Map<string, RpcHandler>;
  /** Methods `jobs.cancel` may cancel: reads and waits, never a change (default: none). */
  cancellable?: ReadonlySet<string>;
  /** The gateway's version, reported in `hello`. */
  serverVersion: string;
  /** Where internal errors and dropped connections are reported (the gateway log). */
  log?: (line: string) => void;
}

/** What `ping` answers: the gateway's clock, in ms since the epoch. */
export interface PingResult {
  pong: true;
  time: number;
}

/** What `hello` answers. */
export interface HelloResult {
  protocol: number;
  capabilities: string[];
  methods: string[];
  server: { pid: number; version: string };
}

const HelloParamsSchema = z.object({
  token: z.string().max(256),
  protocol: z.number().int().positive(),
  client: z
    .string()
    .max(LIMITS.clawClientNameChars)
    .refine((name) => !/[\p{Cc}\p{Cf}]/u.test(name), 'must not contain control or format characters')
    .optional(),
  // What the client can do for the gateway (answer an MCP elicitation, ...), as `name:version` flags.
  features: z
    .array(z.string().max(LIMITS.clawClientNameChars).regex(/^[a-z][a-z0-9._-]*:[0-9]+$/, 'a feature is name:version, e.g. mcp-elicitation:1'))
    .max(LIMITS.clawClientFeatures)
    .optional(),
});

function sameToken(given: string, expected: string): boolean {
  // Hash both so the comparison is constant-time whatever the lengths.
  const digest = (value: string) => crypto.createHash('sha256').update(value).digest();
  return crypto.timingSafeEqual(digest(given), digest(expected));
}

function errorResponse(id: JSONRPCID, error: JSONRPCError): JSONRPCErrorResponse {
  return createJSONRPCErrorResponse(id, error.code, error.message, error.data);
}

export class RpcServer {
  readonly #options: RpcServerOptions;
  readonly #rpc: JSONRPCServer<ServerConnection>;
  readonly #connections = new Set<ServerConnection>();
  /** Connections over the limit, told so and on their way out. */
  readonly #refused = new Set<net.Socket>();
  /** Connections that have not said hello yet, oldest first. */
  readonly #waiting = new Set<ServerConnection>();
  readonly #log: (line: string) => void;
  #server: net.Server | undefined;
  #socketIno: number | undefined;
  #nextId = 1;

  constructor(options: RpcServerOptions) {
    for (const own of TRANSPORT_METHODS) {
      if (options.methods.has(own)) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `the RPC server provides \`${own}\` itself; remove it from the methods`);
    }
    this.#options = options;
    this.#log = options.log ?? (() => {});
    this.#rpc = new JSONRPCServer<ServerConnection>({ errorListener: (message, data) => this.#log(`${message} ${describeError(data)}`) });
    this.#rpc.mapErrorToJSONRPCErrorResponse = (id, error) => {
      if (!(error instanceof XdogError)) this.#log(`internal error answering request ${String(id)}: ${stackOf(error)}`);
      return errorResponse(id, toRpcError(error, 'the gateway'));
    };
    this.#rpc.handleMethodNotFound = async (request) =>
      request.id === undefined
        ? null
        : errorResponse(
            request.id,
            rpcError(RpcErrorCodes.METHOD_NOT_FOUND, ErrorCodes.UNSUPPORTED, `the gateway has no method ${request.method}`, 'hello lists the methods this gateway offers'),
          );
    // Liveness: answered by the transport itself, so a busy gateway still says pong while its work waits.
    this.#rpc.addMethod('ping', (): PingResult => ({ pong: true, time: Date.now() }));
    // A connection's running requests are its jobs: listed and cancelled by the transport, never queued behind them.
    this.#rpc.addMethod('jobs.list', (_params, connection) => ({ jobs: connection.jobs.list() }));
    this.#rpc.addMethod('jobs.cancel', (params, connection) => {
      const parsed = JobCancelParamsSchema.safeParse(params ?? {});
      if (!parsed.success) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'jobs.cancel: invalid params', { hint: 'jobs.cancel takes { id? } (a request id of this connection; without it, the newest job)' });
      return connection.jobs.cancel(parsed.data.id, 'cancelled by the client (jobs.cancel)');
    });
    for (const [name, handler] of options.methods) {
      this.#rpc.addMethodAdvanced(name, async (request, connection) => {
        const { id } = request;
        let job: RpcJob | undefined;
        try {
          job = id === undefined ? NOTIFICATION_JOB : connection.jobs.start(id, name, this.#options.cancellable?.has(name) ?? false);
          // A cancelled job is answered at once; a handler that honours the signal also stops its work.
          const result = await untilCancelled(handler(request.params, connection, job), job.signal);
          return id === undefined ? null : createJSONRPCSuccessResponse(id, result ?? null);
        } catch (error) {
          if (!(error instanceof XdogError)) this.#log(`internal error in ${name}: ${stackOf(error)}`);
          return id === undefined ? null : errorResponse(id, toRpcError(error, name));
        } finally {
          if (id !== undefined && job) connection.jobs.end(id);
        }
      });
    }
  }

  /** Connections currently open (authenticated or not). */
  get connectionCount(): number {
    return this.#connections.size;
  }

  /**
   * Listens on the socket. A socket file nobody answers on is stale and is
   * replaced; one another server answers on is refused with CONFLICT.
   */
  async listen(): Promise<void> {
    if (this.#server) throw new XdogError(ErrorCodes.INVALID_STATE, 'the RPC server is already listening');
    const { socketPath } = this.#options;
    assertSocketPathFits(socketPath);
    ensurePrivateDir(path.dirname(socketPath));
    const server = net.createServer((socket) => this.#accept(socket));
    try {
      await listenOn(server, socketPath);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
      await this.#replaceStaleSocket(socketPath);
      await listenOn(server, socketPath);
    }
    server.on('error', (error) => this.#log(`socket server error: ${describeError(error)}`));
    fs.chmodSync(socketPath, 0o600);
    this.#socketIno = fs.statSync(socketPath).ino;
    this.#server = server;
  }

  /** Stops listening, cuts every connection and removes the socket file (if it is still ours). */
  async close(): Promise<void> {
    const server = this.#server;
    if (!server) return;
    this.#server = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // Gracefully: the last notifications (a run's end) are still queued; a client that does not read is cut after a grace.
    for (const connection of [...this.#connections]) connection.close('the gateway is stopping');
    for (const socket of [...this.#refused]) socket.destroy();
    await closed;
    try {
      if (fs.statSync(this.#options.socketPath).ino === this.#socketIno) fs.unlinkSync(this.#options.socketPath);
    } catch {
      // Already gone.
    }
  }

  async #replaceStaleSocket(socketPath: string): Promise<void> {
    const stat = fs.lstatSync(socketPath);
    if (!stat.isSocket()) {
      throw new XdogError(ErrorCodes.CONFLICT, `${socketPath} exists and is not a socket`, { hint: `remove it if nothing needs it` });
    }
    if (await probeSocket(socketPath)) {
      throw new XdogError(ErrorCodes.CONFLICT, `another gateway is already listening on ${socketPath}`, {
        hint: 'stop it with `xdog claw gateway stop` or check it with `xdog claw gateway status`',
      });
    }
    fs.unlinkSync(socketPath);
  }

  #accept(socket: net.Socket): void {
    // EPIPE, ECONNRESET and friends end this connection only ('close' follows).
    socket.on('error', (error) => this.#log(`connection error: ${describeError(error)}`));
    const full = this.#connections.size >= LIMITS.clawConnections;
    if (this.#waiting.size >= LIMITS.clawPreAuthConnections) {
      this.#closeLongestWaiting(`the gateway already has ${LIMITS.clawPreAuthConnections} connections waiting for their hello, its limit`);
    } else if (full && this.#waiting.size > 0) {
      this.#closeLongestWaiting(`the gateway already serves ${LIMITS.clawConnections} connections, its limit, ${this.#waiting.size} of them waiting for their hello`);
    } else if (full) {
      this.#refuse(socket);
      return;
    }
    const connection = new ServerConnection(this.#nextId++, socket, this.#log);
    this.#connections.add(connection);
    this.#waiting.add(connection);
    const helloTimer = setTimeout(() => {
      if (connection.authenticated) return;
      this.#reply(connection, errorResponse(null, rpcError(RpcErrorCodes.SERVER_ERROR, ErrorCodes.UNAUTHENTICATED, `no hello within ${LIMITS.clawHelloTimeoutSeconds} s; the connection is closed`, HELLO_AT_ONCE)));
      connection.close(`no hello within ${LIMITS.clawHelloTimeoutSeconds} s`);
    }, LIMITS.clawHelloTimeoutSeconds * 1000);
    helloTimer.unref();
    connection.onClose(() => {
      clearTimeout(helloTimer);
      connection.jobs.cancelAll('the connection closed');
      this.#connections.delete(connection);
      this.#waiting.delete(connection);
      if (connection.closeReason) this.#log(`connection ${connection.id} closed: ${connection.closeReason}`);
    });
    const framer = new LineFramer(LIMITS.clawFrameBytes, {
      line: (line) => this.#guarded(connection, () => this.#receive(connection, line)),
      oversized: (seen) => this.#reply(connection, errorResponse(null, rpcError(RpcErrorCodes.INVALID_REQUEST, ErrorCodes.LIMIT_EXCEEDED, oversizedFrameMessage(seen), 'send less at once'))),
    });
    socket.on('data', (chunk: Buffer) => {
      if (connection.closed) return;
      try {
        framer.push(chunk);
      } catch (error) {
        // The framer's state is unknown after this: the connection ends, the process does not.
        this.#log(`internal error reading connection ${connection.id}: ${stackOf(error)}`);
        connection.close('its frames could not be read');
      }
    });
  }

  /** Tells a connection over LIMITS.clawConnections why, and lets it go. */
  #refuse(socket: net.Socket): void {
    const refusal = rpcError(
      RpcErrorCodes.SERVER_ERROR,
      ErrorCodes.UNAVAILABLE,
      `the gateway already serves ${LIMITS.clawConnections} connections, its limit`,
      'close another client and try again',
    );
    // Read and drop what it sends, so its end is seen and the socket closes at once.
    socket.resume();
    socket.end(`${JSON.stringify(errorResponse(null, refusal))}\n`);
    this.#refused.add(socket);
    socket.once('close', () => this.#refused.delete(socket));
    setTimeout(() => socket.destroy(), 1000).unref();
  }

  /**
   * Makes room for a new connection by closing the one that has waited longest
   * for its hello: idle sockets then hold at most LIMITS.clawPreAuthConnections
   * places, and a client that says hello at once gets in.
   */
  #closeLongestWaiting(why: string): void {
    const [longest] = this.#waiting;
    if (!longest) return;
    this.#reply(longest, errorResponse(null, rpcError(RpcErrorCodes.SERVER_ERROR, ErrorCodes.UNAVAILABLE, `${why}; this one waited longest and is closed`, HELLO_AT_ONCE)));
    longest.close(`${why}; it waited longest for its hello`);
  }

  /** Runs one frame's work; whatever it throws is answered on that connection (INTERNAL, logged) and goes no further. */
  #guarded(connection: ServerConnection, work: () => void): void {
    try {
      work();
    } catch (error) {
      this.#log(`internal error reading a frame of connection ${connection.id}: ${stackOf(error)}`);
      this.#reply(connection, errorResponse(null, toRpcError(error, 'the gateway')));
    }
  }

  #receive(connection: ServerConnection, line: Buffer): void {
    if (connection.closed) return; // the rest of a chunk that arrived with a refused hello
    const decoded = decodeFrame(line);
    if (!decoded.ok) {
      this.#reply(connection, createJSONRPCErrorResponse(null, RpcErrorCodes.PARSE_ERROR, `parse error: ${decoded.reason}`, { code: ErrorCodes.INVALID_ARGUMENT }));
      return;
    }
    const message = decoded.value;
    if (Array.isArray(message)) {
      this.#reply(connection, errorResponse(null, rpcError(RpcErrorCodes.INVALID_REQUEST, ErrorCodes.INVALID_ARGUMENT, 'batches are not supported', 'send one request per line')));
      return;
    }
    if (typeof message !== 'object' || message === null) {
      this.#reply(connection, errorResponse(null, rpcError(RpcErrorCodes.INVALID_REQUEST, ErrorCodes.INVALID_ARGUMENT, 'a frame must be a JSON-RPC 2.0 object')));
      return;
    }
    const envelope = message as Record<string, unknown>;
    // Only a plain id is ever echoed: a nested one could not even be encoded.
    const id = isJSONRPCID(envelope.id) ? envelope.id : null;
    const problem = envelopeProblem(envelope);
    if (problem) {
      this.#reply(connection, errorResponse(id, rpcError(RpcErrorCodes.INVALID_REQUEST, ErrorCodes.INVALID_ARGUMENT, problem, 'send {"jsonrpc": "2.0", "id": 1, "method": "…", "params": {…}}, one per line')));
      return;
    }
    const request = envelope as unknown as JSONRPCRequest;
    if (request.method === 'hello') {
      if (request.id === undefined) return; // a notification gets no answer
      this.#reply(connection, this.#hello(connection, request.id, request.params), 'hello');
      if (!connection.authenticated) connection.close('hello refused');
      return;
    }
    if (!connection.authenticated) {
      if (request.id === undefined) return;
      this.#reply(connection, errorResponse(id, rpcError(RpcErrorCodes.SERVER_ERROR, ErrorCodes.UNAUTHENTICATED, 'say hello with the gateway token first', 'the first request on a connection must be hello')));
      return;
    }
    // Not awaited: a long call must not hold up the requests behind it.
    const { method } = request;
    this.#rpc.receive(request, connection).then(
      (response) => {
        if (response) this.#reply(connection, response as JSONRPCResponse, method);
      },
      (error: unknown) => {
        this.#log(`internal error dispatching ${method.slice(0, 100)}: ${stackOf(error)}`);
        if (request.id !== undefined) this.#reply(connection, errorResponse(request.id, toRpcError(error, 'the gateway')));
      },
    );
  }

  #hello(connection: ServerConnection, id: JSONRPCID, params: unknown): JSONRPCResponse {
    if (connection.authenticated) {
      return errorResponse(id, rpcError(RpcErrorCodes.SERVER_ERROR, ErrorCodes.INVALID_STATE, 'this connection already said hello'));
    }
    const parsed = HelloParamsSchema.safeParse(params);
    if (!parsed.success) {
      const where = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'params'}: ${issue.message}`).join('; ');
      return errorResponse(id, rpcError(RpcErrorCodes.INVALID_PARAMS, ErrorCodes.INVALID_ARGUMENT, `invalid hello: ${where}`, 'hello takes { token, protocol, client?, features? }'));
    }
    const { token, protocol, client, features } = parsed.data;
    if (!sameToken(token, this.#options.token)) {
      return errorResponse(id, rpcError(RpcErrorCodes.SERVER_ERROR, ErrorCodes.UNAUTHENTICATED, 'wrong gateway token', 'read the token from the gateway token file; it changes when the runtime directory is cleared'));
    }
    if (protocol !== this.#options.protocolVersion) {
      return errorResponse(
        id,
        rpcError(
          RpcErrorCodes.SERVER_ERROR,
          ErrorCodes.UNSUPPORTED,
          `this client speaks protocol ${protocol}, the gateway speaks protocol ${this.#options.protocolVersion}`,
          'run the same xdog version for both: restart the gateway (`xdog claw gateway stop`, then `xdog claw gateway start`)',
        ),
      );
    }
    connection.authenticated = true;
    this.#waiting.delete(connection);
    connection.client = client;
    connection.features = new Set(features ?? []);
    const result: HelloResult = {
      protocol: this.#options.protocolVersion,
      capabilities: [...this.#options.capabilities],
      methods: [...this.#options.methods.keys(), ...TRANSPORT_METHODS.filter((method) => method !== 'hello')].sort(),
      server: { pid: process.pid, version: this.#options.serverVersion },
    };
    return createJSONRPCSuccessResponse(id, result);
  }

  /**
   * Sends a response; never throws. One too large for a frame is replaced by
   * an error saying so; one that cannot be encoded at all (a value nested too
   * deep, say) by an INTERNAL error, logged with its stack.
   */
  #reply(connection: ServerConnection, response: JSONRPCResponse, method = 'the gateway'): void {
    const failure = sendOrError(connection, response, 'the answer');
    if (failure === undefined) return;
    if (!XdogError.is(failure, ErrorCodes.LIMIT_EXCEEDED)) this.#log(`internal error encoding the answer of ${method.slice(0, 100)} on connection ${connection.id}: ${stackOf(failure)}`);
    const error = errorResponse(response.id, toRpcError(failure, method));
    // An id too long for a frame gets its error without it.
    if (sendOrError(connection, error, 'an error') === undefined || sendOrError(connection, { ...error, id: null }, 'an error') === undefined) return;
    connection.close('an answer could not be sent');
  }
}

const HELLO_AT_ONCE = 'a client says hello with the gateway token as soon as its connection is open';

/** Why a decoded object is not a request the gateway takes (undefined when it is one). */
function envelopeProblem(envelope: Record<string, unknown>): string | undefined {
  if (envelope.jsonrpc !== '2.0') return 'a request must carry "jsonrpc": "2.0"';
  if ('result' in envelope || 'error' in envelope) return 'the gateway sends no requests, so it takes no responses';
  if (typeof envelope.method !== 'string') return 'a request needs a "method" string';
  if ('id' in envelope && !isJSONRPCID(envelope.id)) return '"id" must be a string, a number or null';
  return undefined;
}

/** Sends one message; what it threw instead, if it did. */
function sendOrError(connection: ServerConnection, message: unknown, what: string): unknown {
  try {
    connection.send(message, what);
    return undefined;
  } catch (error) {
    return error;
  }
}

function listenOn(server: net.Server, socketPath: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once('error', onError);
    server.listen(socketPath, () => {
      server.off('error', onError);
      resolve();
    });
  });
}
