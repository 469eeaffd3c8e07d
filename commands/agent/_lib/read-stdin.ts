/**
 * Reads piped stdin to its end, asynchronously and bounded. A synchronous read
 * fails with EAGAIN on a pipe whose writer has not written yet, blocks SIGTERM,
 * and takes an endless stream whole; this one waits on the event loop and
 * stops at the limit with an error instead.
 */
import { ErrorCodes, XdogError } from '../../../core/index.js';

/** All of stdin as UTF-8; over `maxBytes` is a LIMIT_EXCEEDED error naming `what` stdin was for. */
export async function readStdin(maxBytes: number, what: string, input: NodeJS.ReadableStream = process.stdin): Promise<string> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of input) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    length += bytes.length;
    if (length > maxBytes) {
      // Stop reading: the writer gets EPIPE instead of filling memory.
      (input as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
      throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `${what} on stdin is over the limit of ${maxBytes} bytes`, {
        hint: 'pipe less, or put the data in a file that a tool reads',
      });
    }
    chunks.push(bytes);
  }
  return Buffer.concat(chunks, length).toString('utf8');
}
