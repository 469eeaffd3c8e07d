/**
 * The fast check of stored message payloads (plugins/sessions/message-shape.ts)
 * may only ever say "fits" for what the zod schema accepts: every payload here,
 * and every one-step mutation of it (a key dropped, added or given another
 * value), is held against zod. The valid ones must take the fast path, or
 * reading a long session falls back to a zod parse per row.
 */
import { describe, expect, it } from 'vitest';
import { payloadSchema } from '../../../plugins/sessions/entry-payloads.js';
import { messagePayloadFits } from '../../../plugins/sessions/message-shape.js';

const usage = { input: 10, output: 2, cacheRead: 0, cacheWrite: 0 };
const valid: unknown[] = [
  { message: { role: 'user', content: 'hi', timestamp: 1 } },
  { message: { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image', data: 'AAAA', mimeType: 'image/png' }], timestamp: 2 } },
  {
    message: {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'hm', signature: 'sig' },
        { type: 'thinking', thinking: '', signature: 'opaque', redacted: true },
        { type: 'text', text: 'ok' },
        { type: 'toolCall', id: 'c1', name: 'bash', arguments: { command: 'ls', nested: { a: [1] } } },
      ],
      model: 'openai/gpt-5.1',
      usage,
      stopReason: 'toolUse',
      timestamp: 3,
    },
  },
  { message: { role: 'assistant', content: [], model: 'm', usage: { input: 0, output: 0 }, stopReason: 'error', errorMessage: 'boom', timestamp: 4.5 } },
  { message: { role: 'toolResult', toolCallId: 'c1', toolName: 'bash', content: [{ type: 'text', text: 'out' }], details: { exit: 0 }, isError: false, timestamp: 5 } },
  { message: { role: 'toolResult', toolCallId: 'c1', toolName: 'bash', content: [{ type: 'image', data: 'AA', mimeType: 'image/jpeg' }], isError: true, timestamp: 6 } },
];

const zodAccepts = (payload: unknown) => payloadSchema('message')!.safeParse(payload).success;
const REPLACEMENTS: unknown[] = [null, 0, -1, 1.5, 2 ** 60, '', 'x', 'robot', true, false, [], {}, [{}], { type: 'text' }];

/** Every payload one step away from `value`: each key dropped, each value replaced, an unknown key added, at every depth. */
function mutations(value: unknown): unknown[] {
  const out: unknown[] = REPLACEMENTS.slice();
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      out.push(value.filter((_, j) => j !== i));
      for (const changed of mutations(item)) out.push(value.map((other, j) => (j === i ? changed : other)));
    });
    out.push([...value, 'extra']);
  } else if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const { [key]: _dropped, ...rest } = record;
      out.push(rest);
      for (const changed of mutations(record[key])) out.push({ ...record, [key]: changed });
    }
    out.push({ ...record, extra: 1 });
    out.push(JSON.parse(`{"__proto__": 1, ${JSON.stringify(record).slice(1)}`.replace(/, }$/, '}')));
  }
  return out;
}

describe('the fast check of stored message payloads', () => {
  it('takes every valid message shape without asking zod', () => {
    for (const payload of valid) {
      expect(zodAccepts(payload), JSON.stringify(payload)).toBe(true);
      expect(messagePayloadFits(payload), JSON.stringify(payload)).toBe(true);
    }
  });

  it('never accepts what zod refuses, for every one-step mutation of them', () => {
    let refused = 0;
    let checked = 0;
    for (const payload of valid) {
      for (const mutant of mutations(payload)) {
        checked++;
        const zod = zodAccepts(mutant);
        if (!zod) refused++;
        if (messagePayloadFits(mutant)) expect(zod, `fast check accepted ${JSON.stringify(mutant)}`).toBe(true);
      }
    }
    // The mutations do reach the refusals (not a vacuous pass).
    expect(checked).toBeGreaterThan(1000);
    expect(refused).toBeGreaterThan(checked / 2);
  });

  it('leaves a system source and anything unknown to zod', () => {
    const user = { role: 'user', content: 'hi', timestamp: 1 };
    expect(messagePayloadFits({ message: user, source: { kind: 'system', origin: 'cron', id: 'j1' } })).toBe(false);
    expect(messagePayloadFits({ message: { ...user, role: 'system' } })).toBe(false);
    expect(messagePayloadFits(JSON.parse('{"message": {"role": "user", "content": "hi", "timestamp": 1, "__proto__": {}}}'))).toBe(false);
  });
});
