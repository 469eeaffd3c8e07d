/**
 * One NDJSON frame: a JSON value on one line. Both directions hold frames to
 * LIMITS.clawFrameBytes; a sender refuses to write a larger one, since the
 * receiver would refuse to read it.
 */
import { LIMITS } from '../limits.js';
import { ErrorCodes, XdogError } from '../errors.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The notification that carries one part of a notification over the frame limit (docs/protocol.md, "Large notifications"). */
export const NOTIFICATION_PART = 'notification.part';

/** The params of one `notification.part`: `data` is base64 of bytes `offset`.. of the whole notification's JSON. */
export interface NotificationPart {
  id: number;
  offset: number;
  totalBytes: number;
  data: string;
  last: boolean;
}

/** The bytes of one frame, newline included; LIMIT_EXCEEDED when it would be over the frame limit. */
export function encodeFrame(message: unknown, what: string): Buffer {
  return withNewline(encodeJson(message), what);
}

/** A message's JSON bytes (no newline), of any size: a caller that may send it in parts checks the size itself. */
export function encodeJson(message: unknown): Buffer {
  return Buffer.from(JSON.stringify(message), 'utf8');
}

/** The frame of JSON bytes `bytes`; LIMIT_EXCEEDED when it would be over the frame limit. */
export function withNewline(bytes: Buffer, what: string): Buffer {
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
