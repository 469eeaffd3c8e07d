/**
 * The claw gateway's transport: JSON-RPC 2.0 (json-rpc-2.0) as NDJSON, one
 * bounded message per line, over a Unix socket in a private directory, with
 * a token `hello` handshake. See docs/protocol.md, "Transport".
 */
export { ensurePrivateDir, readOrCreateToken, readToken } from './private-files.js';
export { LineFramer, type LineFramerEvents } from './line-framer.js';
