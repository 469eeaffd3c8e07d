/** Turning command-line words into protocol values, with usage errors that name the flag. */
import { ErrorCodes, XdogError } from '../../../core/errors.js';
import { LIMITS } from '../../../core/limits.js';

/** `--since ISO` as epoch milliseconds. */
export function parseSince(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms) || ms < 0) {
    throw new XdogError(ErrorCodes.USAGE, `--since ${JSON.stringify(value)} is not an ISO 8601 time`, { hint: 'use e.g. 2026-11-30 or 2026-11-30T12:00:00Z' });
  }
  return ms;
}

/** A 1-based checkpoint or entry id given as an argument. */
export function parsePositive(name: string, value: string, hint = 'xdog claw sessions show lists them'): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || !Number.isSafeInteger(Number(value))) {
    throw new XdogError(ErrorCodes.USAGE, `${name} must be a positive whole number, not ${JSON.stringify(value)}`, { hint });
  }
  return Number(value);
}

/** The TEXT argument, or stdin when it is "-" (bounded by the gateway's input limit). */
export async function readText(argument: string, stdin: NodeJS.ReadableStream = process.stdin): Promise<string> {
  const text = argument === '-' ? await readBounded(stdin, LIMITS.clawInputBytes) : argument;
  if (text.trim() === '') throw new XdogError(ErrorCodes.USAGE, 'the text is empty', { hint: 'pass TEXT, or - to read it from stdin' });
  return text;
}

async function readBounded(stream: NodeJS.ReadableStream, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    total += bytes.length;
    if (total > limit) {
      throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `the text on stdin is over the gateway's limit of ${limit} bytes`, { hint: 'send a shorter text' });
    }
    chunks.push(bytes);
  }
  return Buffer.concat(chunks).toString('utf8');
}
