/**
 * A fast, conservative check of a stored message payload (`{ message }`)
 * against the zod schemas it was written through (core/agent/messages.ts,
 * entry-payloads.ts). Reading a long session back decodes every message, and
 * a zod parse per row cost more than the JSON decode itself; this check walks
 * the plain decoded JSON once. It only ever says "fits": whatever it does not
 * recognise (a system source, a property it does not know, a value out of
 * range) goes to the zod schema, which decides and words the refusal, so a
 * damaged row is refused exactly as before. test/plugins/sessions/message-shape.test.ts
 * holds it to that: whatever it accepts, zod accepts.
 */

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every own key of `value` is one of `allowed` (zod's `.strict()`). */
function onlyKeys(value: Json, allowed: ReadonlySet<string>): boolean {
  // Object.keys, not `for in`: JSON.parse makes "__proto__" an own key, and it must count as unknown.
  for (const key of Object.keys(value)) if (!allowed.has(key)) return false;
  return true;
}

const nonEmpty = (value: unknown): boolean => typeof value === 'string' && value.length > 0;
const count = (value: unknown): boolean => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
const optionalCount = (value: unknown): boolean => value === undefined || count(value);
const finite = (value: unknown): boolean => typeof value === 'number' && Number.isFinite(value);

const TEXT = new Set(['type', 'text']);
const IMAGE = new Set(['type', 'data', 'mimeType']);
const THINKING = new Set(['type', 'thinking', 'signature', 'redacted']);
const TOOL_CALL = new Set(['type', 'id', 'name', 'arguments']);
const USAGE = new Set(['input', 'output', 'cacheRead', 'cacheWrite']);
const USER = new Set(['role', 'content', 'timestamp']);
const ASSISTANT = new Set(['role', 'content', 'model', 'usage', 'stopReason', 'errorMessage', 'timestamp']);
const TOOL_RESULT = new Set(['role', 'toolCallId', 'toolName', 'content', 'details', 'isError', 'timestamp']);
const PAYLOAD = new Set(['message']);
const STOP_REASONS = new Set(['stop', 'length', 'toolUse', 'error', 'aborted']);

function part(value: unknown, image: boolean, assistant: boolean): boolean {
  if (!isObject(value)) return false;
  switch (value.type) {
    case 'text':
      return typeof value.text === 'string' && onlyKeys(value, TEXT);
    case 'image':
      return image && typeof value.data === 'string' && nonEmpty(value.mimeType) && onlyKeys(value, IMAGE);
    case 'thinking':
      return (
        assistant &&
        typeof value.thinking === 'string' &&
        (value.signature === undefined || typeof value.signature === 'string') &&
        (value.redacted === undefined || value.redacted === true) &&
        onlyKeys(value, THINKING)
      );
    case 'toolCall':
      return assistant && nonEmpty(value.id) && nonEmpty(value.name) && isObject(value.arguments) && onlyKeys(value, TOOL_CALL);
    default:
      return false;
  }
}

function parts(value: unknown, image: boolean, assistant: boolean): boolean {
  if (!Array.isArray(value)) return false;
  for (const item of value) if (!part(item, image, assistant)) return false;
  return true;
}

function message(value: unknown): boolean {
  if (!isObject(value) || !finite(value.timestamp)) return false;
  switch (value.role) {
    case 'user':
      return (typeof value.content === 'string' || parts(value.content, true, false)) && onlyKeys(value, USER);
    case 'assistant': {
      const usage = value.usage;
      return (
        parts(value.content, false, true) &&
        typeof value.model === 'string' &&
        isObject(usage) &&
        count(usage.input) &&
        count(usage.output) &&
        optionalCount(usage.cacheRead) &&
        optionalCount(usage.cacheWrite) &&
        onlyKeys(usage, USAGE) &&
        STOP_REASONS.has(value.stopReason as string) &&
        (value.errorMessage === undefined || typeof value.errorMessage === 'string') &&
        onlyKeys(value, ASSISTANT)
      );
    }
    case 'toolResult':
      return (
        nonEmpty(value.toolCallId) &&
        nonEmpty(value.toolName) &&
        parts(value.content, true, false) &&
        typeof value.isError === 'boolean' &&
        onlyKeys(value, TOOL_RESULT)
      );
    default:
      return false;
  }
}

/** True when the decoded payload of a `message` entry certainly fits its schema; false means "ask zod". */
export function messagePayloadFits(payload: unknown): boolean {
  return isObject(payload) && onlyKeys(payload, PAYLOAD) && message(payload.message);
}
