/**
 * One NDJSON frame: a JSON value on one line. Both directions hold frames to
 * LIMITS.clawFrameBytes; a sender refuses to write a larger one, since the
 * receiver would refuse to read it.
 */
import { LIMITS } from '../../../core/limits.js';
import { ErrorCodes, XdogError } from '../../../core/errors.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The bytes of one frame, newline included; LIMIT_EXCEEDED when it would be over the frame limit. */
export function encodeFrame(message: unknown, what: string): Buffer {
  const bytes = Buffer.from(JSON.stringify(message), 'utf8');
  if (bytes.length > LIMITS.clawFrameBytes) {
    throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `${what} is ${bytes.length} bytes, over the ${LIMITS.clawFrameBytes}-byte frame limit`, {
      hint: 'send less at once (bulk data moves in chunks)',
      details: { actual: bytes.length, limit: LIMITS.clawFrameBytes },
    });
  }
  return Buffer.concat([bytes, Buffer.from('\n')]);
}

/** A decoded frame, or why it is not one (invalid UTF-8 or JSON). */
export type DecodedFrame = { ok: true; value: unknown } | { ok: false; reason: string };

export function decodeFrame(line: Buffer): DecodedFrame {
  let text: string;
  try {
    text = utf8.decode(line);
  } catch {
    return { ok: false, reason: 'the frame is not valid UTF-8' };
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, reason: `the frame is not valid JSON (${(error as Error).message})` };
  }
}

/** The message for a frame that crossed the limit, used by both ends. */
export function oversizedFrameMessage(seenBytes: number): string {
  return `a frame went over the ${LIMITS.clawFrameBytes}-byte frame limit (${seenBytes} bytes seen before its end); it was discarded`;
}
