/**
 * The one error type xdog throws for misuse, bad input, bad state and policy.
 * `code` is stable and machine-readable, `message` says what is wrong, `hint`
 * says what to do about it. The CLI prints `xdog: <message> [<code>]` and the
 * hint on its own line, with a stack trace only under `--debug`.
 */

export const ErrorCodes = {
  USAGE: 'USAGE',
  CONFIG_INVALID: 'CONFIG_INVALID',
  CONFIG_NOT_FOUND: 'CONFIG_NOT_FOUND',
  LIMIT_EXCEEDED: 'LIMIT_EXCEEDED',
  INVALID_ARGUMENT: 'INVALID_ARGUMENT',
  INVALID_STATE: 'INVALID_STATE',
  NOT_FOUND: 'NOT_FOUND',
  CONFLICT: 'CONFLICT',
  PLUGIN_INVALID: 'PLUGIN_INVALID',
  PLUGIN_CONFLICT: 'PLUGIN_CONFLICT',
  PLUGIN_LOAD_FAILED: 'PLUGIN_LOAD_FAILED',
  PLUGIN_OPEN_FAILED: 'PLUGIN_OPEN_FAILED',
  PLUGIN_INSTALL_FAILED: 'PLUGIN_INSTALL_FAILED',
  HOOK_FAILED: 'HOOK_FAILED',
  MODEL_UNKNOWN: 'MODEL_UNKNOWN',
  MODEL_AMBIGUOUS: 'MODEL_AMBIGUOUS',
  MODEL_FAILED: 'MODEL_FAILED',
  TOOL_FAILED: 'TOOL_FAILED',
  SNAPSHOT_INVALID: 'SNAPSHOT_INVALID',
  IMAGE_REJECTED: 'IMAGE_REJECTED',
  CLOSED: 'CLOSED',
  ABORTED: 'ABORTED',
  MCP_FAILED: 'MCP_FAILED',
  AUTH_FAILED: 'AUTH_FAILED',
  FLOW_INVALID: 'FLOW_INVALID',
  FLOW_STEP_FAILED: 'FLOW_STEP_FAILED',
  BUSY: 'BUSY',
  STALE: 'STALE',
  STORE_CORRUPT: 'STORE_CORRUPT',
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  UNSUPPORTED: 'UNSUPPORTED',
  UNAVAILABLE: 'UNAVAILABLE',
  /** A spending budget (a group's, a goal's) is used up: no more model calls until it is raised or renews. */
  BUDGET_EXCEEDED: 'BUDGET_EXCEEDED',
  INTERNAL: 'INTERNAL',
} as const;

export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];

const ERROR_CODES = new Set<string>(Object.values(ErrorCodes));

/** True for one of the codes above (a code read from the wire or a log line). */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && ERROR_CODES.has(value);
}

/** Process exit code for each error code; anything not listed exits 1. */
const EXIT_CODES: Partial<Record<ErrorCode, number>> = {
  USAGE: 2,
  CONFIG_INVALID: 2,
  CONFIG_NOT_FOUND: 2,
  INVALID_ARGUMENT: 2,
  MODEL_UNKNOWN: 2,
  MODEL_AMBIGUOUS: 2,
};

export interface XdogErrorOptions {
  hint?: string;
  cause?: unknown;
  details?: Record<string, unknown>;
}

export class XdogError extends Error {
  override readonly name = 'XdogError';
  readonly code: ErrorCode;
  readonly hint?: string;
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, options: XdogErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.hint = options.hint;
    this.details = options.details;
  }

  /** Exit code for the CLI, from the one table above. */
  get exitCode(): number {
    return EXIT_CODES[this.code] ?? 1;
  }

  toJSON(): { code: ErrorCode; message: string; hint?: string } {
    return { code: this.code, message: this.message, ...(this.hint ? { hint: this.hint } : {}) };
  }

  static is(value: unknown, code?: ErrorCode): value is XdogError {
    return value instanceof XdogError && (code === undefined || value.code === code);
  }
}

/** Throws LIMIT_EXCEEDED when `actual` is over `limit`. */
export function assertWithinLimit(what: string, actual: number, limit: number, unit = 'bytes'): void {
  if (actual > limit) {
    throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `${what} is ${actual} ${unit}, over the limit of ${limit} ${unit}`, {
      hint: `make it smaller than ${limit} ${unit}`,
      details: { actual, limit },
    });
  }
}

/** A one-line description of any thrown value. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
