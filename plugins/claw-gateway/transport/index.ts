/**
 * The claw gateway's transport: the shared local RPC transport of core/rpc
 * (JSON-RPC 2.0 as bounded NDJSON frames over a private Unix socket, token
 * `hello`). See docs/protocol.md, "Transport".
 */
export * from '../../../core/rpc/index.js';
