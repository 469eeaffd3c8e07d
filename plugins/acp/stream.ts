/**
 * The ACP stream over a pair of byte streams (stdio in the CLI), bounded by
 * LIMITS.acpMessageBytes, that remembers why its input failed. The SDK ends a
 * connection on an oversized or undecodable frame as if the client had simply
 * left; `readError()` lets the host say what happened and fail.
 */
import * as acp from '@agentclientprotocol/sdk';
import { ErrorCodes, LIMITS, XdogError } from '../../core/index.js';

export interface AcpStream {
  stream: acp.Stream;
  /** Why reading from the client stopped, when it was not a clean end of input. */
  readError(): XdogError | undefined;
}

export function acpNdJsonStream(output: WritableStream<Uint8Array>, input: ReadableStream<Uint8Array>): AcpStream {
  const inner = acp.ndJsonStream(output, input, { maxMessageBytes: LIMITS.acpMessageBytes });
  let failure: XdogError | undefined;
  const reader = inner.readable.getReader();
  const readable = new ReadableStream<acp.AnyMessage>({
    async pull(controller) {
      try {
        const { value, done } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        failure = describeReadError(error);
        controller.error(error);
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return { stream: { readable, writable: inner.writable }, readError: () => failure };
}

function describeReadError(error: unknown): XdogError {
  if ((error as Error)?.name === 'MessageTooLargeError') {
    return new XdogError(ErrorCodes.LIMIT_EXCEEDED, `the ACP client sent a message over the ${LIMITS.acpMessageBytes}-byte limit; the connection was closed`, {
      hint: 'send large content as a resource link or a file the tools can read',
      cause: error,
    });
  }
  return new XdogError(ErrorCodes.INVALID_ARGUMENT, `reading from the ACP client failed: ${(error as Error)?.message ?? String(error)}`, { cause: error });
}
