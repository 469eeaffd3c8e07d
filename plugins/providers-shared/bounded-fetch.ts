/**
 * A `fetch` for SDKs that read whole responses: a body over `maxBytes` fails
 * the request instead of filling memory. The SDK sees an ordinary Response.
 */
import { ErrorCodes, XdogError } from '../../core/index.js';

export function boundedFetch(maxBytes: number, what: string): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const declared = Number(response.headers.get('content-length') ?? NaN);
    if (declared > maxBytes) {
      await response.body?.cancel();
      throw tooLarge(what, maxBytes);
    }
    if (!response.body) return response;
    let seen = 0;
    const limited = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen > maxBytes) controller.error(tooLarge(what, maxBytes));
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(limited, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

function tooLarge(what: string, maxBytes: number): XdogError {
  return new XdogError(ErrorCodes.LIMIT_EXCEEDED, `${what} is over the limit of ${maxBytes} bytes`);
}
