/**
 * XdogError ↔ JSON-RPC error objects. On the wire an error is
 * `{ code, message, data: { code, hint? } }`: the JSON-RPC `code` says what
 * kind of failure it is to any JSON-RPC client, `data.code` is the XdogError
 * code an xdog client turns back into the same XdogError.
 */
import type { JSONRPCError } from 'json-rpc-2.0';
import { ErrorCodes, XdogError, isErrorCode, type ErrorCode } from '../errors.js';

/** JSON-RPC error codes the transport uses (-32000 is the "server error" range for XdogError). */
export const RpcErrorCodes = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  SERVER_ERROR: -32000,
} as const;

/** The `data` member of every error the gateway sends. */
export interface RpcErrorData {
  code: ErrorCode;
  hint?: string;
}

/** A JSON-RPC error object for an XdogError code (the transport's own refusals use this). */
export function rpcError(rpcCode: number, code: ErrorCode, message: string, hint?: string): JSONRPCError {
  const data: RpcErrorData = hint === undefined ? { code } : { code, hint };
  return { code: rpcCode, message, data };
}

/**
 * What a thrown value becomes on the wire: an XdogError keeps its code,
 * message and hint; anything else is an INTERNAL error with a generic message,
 * so no stack or internal detail reaches a client.
 */
export function toRpcError(error: unknown, method: string): JSONRPCError {
  if (error instanceof XdogError) {
    const invalidParams = error.code === ErrorCodes.INVALID_ARGUMENT || error.code === ErrorCodes.USAGE;
    return rpcError(invalidParams ? RpcErrorCodes.INVALID_PARAMS : RpcErrorCodes.SERVER_ERROR, error.code, error.message, error.hint);
  }
  return rpcError(RpcErrorCodes.INTERNAL_ERROR, ErrorCodes.INTERNAL, `internal error in ${method}`, 'see the gateway log for details');
}

/** A thrown value for the gateway log: its stack when it has one (internal errors are logged whole, never sent). */
export function stackOf(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

function fallbackCode(rpcCode: number): ErrorCode {
  switch (rpcCode) {
    case RpcErrorCodes.METHOD_NOT_FOUND:
      return ErrorCodes.UNSUPPORTED;
    case RpcErrorCodes.PARSE_ERROR:
    case RpcErrorCodes.INVALID_REQUEST:
    case RpcErrorCodes.INVALID_PARAMS:
      return ErrorCodes.INVALID_ARGUMENT;
    default:
      return ErrorCodes.INTERNAL;
  }
}

/** The XdogError a client raises for an error response. */
export function fromRpcError(error: JSONRPCError): XdogError {
  const data = (typeof error.data === 'object' && error.data !== null ? error.data : {}) as Record<string, unknown>;
  const code = isErrorCode(data.code) ? data.code : fallbackCode(error.code);
  const hint = typeof data.hint === 'string' ? data.hint : undefined;
  const message = typeof error.message === 'string' && error.message !== '' ? error.message : `the gateway answered error ${error.code}`;
  return new XdogError(code, message, { hint, details: { rpcCode: error.code } });
}
