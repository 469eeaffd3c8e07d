/**
 * The one rule for text limits in schemas (the gateway protocol, plan state,
 * child specs, tool arguments): a limit counts UTF-8 bytes, never characters,
 * so 2,049 × "é" (4,098 bytes) is over a 4 KiB limit wherever it is checked.
 * An issue over the limit says the size and the limit; it carries both as
 * `params` (`limitBytes`, `bytes`) for callers that build their own message.
 */
import { z } from 'zod';
import { utf8Bytes } from './limits.js';

export interface TextLimitOptions {
  /** Refuse "" (after trimming, with `trim`). */
  nonEmpty?: boolean;
  /** Trim the text before it is checked and returned. */
  trim?: boolean;
}

/** A string of at most `limitBytes` bytes of UTF-8. */
export function textWithin(limitBytes: number, options: TextLimitOptions = {}): z.ZodString {
  let schema = z.string();
  if (options.trim) schema = schema.trim();
  if (options.nonEmpty) schema = schema.min(1, 'must not be empty');
  return schema.check((payload) => {
    const bytes = utf8Bytes(payload.value);
    if (bytes <= limitBytes) return;
    payload.issues.push({ code: 'custom', input: payload.value, message: overLimitMessage(bytes, limitBytes), params: { limitBytes, bytes } });
  });
}

/** "4098 bytes of UTF-8, over the limit of 4096 bytes": what a text over its limit is told. */
export function overLimitMessage(bytes: number, limitBytes: number): string {
  return `${bytes} bytes of UTF-8, over the limit of ${limitBytes} bytes`;
}
