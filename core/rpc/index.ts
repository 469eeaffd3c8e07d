/**
 * The local RPC transport shared by xdog's daemons (the claw gateway, Eyes):
 * JSON-RPC 2.0 (json-rpc-2.0) as NDJSON, one bounded message per line, over a
 * Unix socket in a private directory, with a token `hello` handshake. See
 * docs/protocol.md, "Transport". It lives in core so that no daemon plugin
 * reaches into another's internals.
 */
export { checkRuntimeDir, ensurePrivateDir, ensureRuntimeDir, readOrCreateToken, readToken } from './private-files.js';
export { LineFramer, type LineFramerEvents } from '../line-framer.js';
export { RpcServer, type RpcHandler, type RpcServerOptions, type HelloResult, type PingResult } from './rpc-server.js';
export type { Mergeable, RpcConnection } from './rpc-connection.js';
export type { JobCancelResult, JobInfo, RpcJob } from './connection-jobs.js';
export { RpcClient, type RpcClientOptions, type CallOptions } from './rpc-client.js';
export { RpcErrorCodes, fromRpcError, toRpcError, type RpcErrorData } from './rpc-errors.js';
export { probeSocket } from './socket-path.js';
export { ChunkedSnapshots, type ChunkedSnapshotsOptions, type SnapshotChunk, type TakenSnapshot } from './chunked-snapshots.js';
export { readChunks, readSnapshot, type ChunkedReadOptions, type ChunkedReadResult, type FetchChunk, type SnapshotBody } from './chunked-read.js';
