/**
 * A client of the gateway protocol for the CLI, the TUI and other hosts: it
 * reads the token, connects to the socket, says hello, and calls methods
 * with typed params. It never resends: a call whose answer was lost fails
 * with UNAVAILABLE and the caller asks the gateway for state.
 */
import { LIMITS } from '../../core/limits.js';
import { gatewayLocations, type GatewayLocations } from './locations.js';
import type { MethodName, ParamsOf } from './protocol.js';
import { PROTOCOL_VERSION } from './protocol-names.js';
// The client's own modules, not the transport barrel: a client never loads the server side.
import { checkRuntimeDir, readToken } from '../../core/rpc/private-files.js';
import { RpcClient, type CallOptions } from '../../core/rpc/rpc-client.js';
import type { PingResult } from '../../core/rpc/rpc-server.js';

export interface ConnectOptions {
  /** Shown to the gateway (logs). */
  client?: string;
  /** Client features to declare in `hello` (`ClientFeatures`): what this client can do for the gateway. */
  features?: readonly string[];
  locations?: GatewayLocations;
  /** Deadline for connecting and the hello, in ms. */
  timeoutMs?: number;
  /** Default deadline of a call, in ms (default: LIMITS.clawCallSeconds, longer than any wait of the gateway's, a handoff's included). */
  callTimeoutMs?: number;
}

export interface GatewayConnection {
  readonly hello: RpcClient['hello'];
  /** `signal` cancels the call: it fails with ABORTED at once and the gateway is told (`jobs.cancel`). */
  call<M extends MethodName>(method: M, params: ParamsOf<M>, options?: CallOptions): Promise<any>;
  /** Calls a method a gateway service added (docs/claw-services.md); the gateway validates its params. */
  callService(method: string, params: Record<string, unknown>, options?: CallOptions): Promise<any>;
  /** Liveness: the gateway's transport answers at once, whatever its groups are doing. */
  ping(options?: { timeoutMs?: number }): Promise<PingResult>;
  on(notification: string, listener: (params: any) => void): () => void;
  /** Runs `listener` once when the connection closes (at once if it already has); returns a disposer. */
  onClose(listener: () => void): () => void;
  close(): Promise<void>;
}

export async function connectGateway(options: ConnectOptions = {}): Promise<GatewayConnection> {
  const locations = options.locations ?? gatewayLocations();
  checkRuntimeDir(locations.runtimeRoot, locations.runtimeDir);
  const token = readToken(locations.token);
  const client = await RpcClient.connect({ socketPath: locations.socket, token, client: options.client ?? 'xdog-cli', ...(options.features ? { features: options.features } : {}), protocolVersion: PROTOCOL_VERSION, timeoutMs: options.timeoutMs ?? LIMITS.clawHelloTimeoutSeconds * 1000, ...(options.callTimeoutMs === undefined ? {} : { callTimeoutMs: options.callTimeoutMs }) });
  return {
    hello: client.hello,
    call: (method, params, callOptions) => client.call(method, params, callOptions),
    callService: (method, params, callOptions) => client.call(method, params, callOptions),
    ping: (callOptions) => client.call('ping', {}, callOptions) as Promise<PingResult>,
    on: (notification, listener) => client.on(notification, listener),
    onClose: (listener) => client.onClose(listener),
    close: async () => client.close(),
  };
}
