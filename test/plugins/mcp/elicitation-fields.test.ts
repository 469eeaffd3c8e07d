/**
 * The rules of an elicitation form, enforced on the person's answer by the one
 * shared checker: a typed line (the chat's prompt, the TUI dialog) and a whole
 * answer (`mcp.answer`, checkElicitationAnswer) are refused the same way, with
 * a message naming the field and the rule.
 */
import { describe, expect, it } from 'vitest';
import { checkElicitationAnswer, parseElicitationLine, type McpElicitation } from '../../../plugins/mcp/index.js';
import { parseElicitation } from '../../../plugins/mcp/client-requests.js';

const form = parseElicitation('srv', {
  message: 'who are you?',
  requestedSchema: {
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 3, maxLength: 8 },
      age: { type: 'integer', minimum: 1, maximum: 120 },
      email: { type: 'string', format: 'email' },
      homepage: { type: 'string', format: 'uri' },
      born: { type: 'string', format: 'date' },
      at: { type: 'string', format: 'date-time' },
      tools: { type: 'array', minItems: 1, maxItems: 2, items: { type: 'string', enum: ['a', 'b', 'c'] } },
      odd: { type: 'string', minLength: -1, format: 'hostname' },
    },
    required: ['name'],
  },
}) as McpElicitation;

const refusal = (content: Record<string, string | number | string[]>) => {
  try {
    checkElicitationAnswer('srv', form, { name: 'Ada', ...content });
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
};

describe('elicitation answers checked against the form', () => {
  it('reads the rules from the requested schema, ignoring malformed and unknown ones', () => {
    expect(form.fields.name).toMatchObject({ minLength: 3, maxLength: 8 });
    expect(form.fields.age).toMatchObject({ minimum: 1, maximum: 120 });
    expect(form.fields.email!.format).toBe('email');
    expect(form.fields.tools).toMatchObject({ minItems: 1, maxItems: 2 });
    expect(form.fields.odd).toEqual({ type: 'string' });
  });

  it('refuses lengths, ranges and choice counts, naming the field and the rule', () => {
    expect(refusal({ name: 'Al' })).toBe('the answer\'s field "name" must be at least 3 characters (minLength 3); it has 2');
    expect(refusal({ name: 'Alexandrina' })).toBe('the answer\'s field "name" must be at most 8 characters (maxLength 8); it has 11');
    expect(refusal({ age: 0 })).toBe('the answer\'s field "age" must be at least 1 (minimum 1)');
    expect(refusal({ age: 121 })).toBe('the answer\'s field "age" must be at most 120 (maximum 120)');
    expect(refusal({ tools: [] })).toBe('the answer\'s field "tools" needs at least 1 choice(s) (minItems 1)');
    expect(refusal({ tools: ['a', 'b', 'c'] })).toBe('the answer\'s field "tools" takes at most 2 choice(s) (maxItems 2)');
    // Characters, not UTF-16 units: three emoji are three characters.
    expect(refusal({ name: '😀😀😀' })).toBeUndefined();
    expect(refusal({ name: 'Ada', age: 36, tools: ['a', 'c'] })).toBeUndefined();
  });

  it('refuses strings that are not of the asked format', () => {
    expect(refusal({ email: 'ada.example.org' })).toBe('the answer\'s field "email" must be an email address such as ada@example.org (format email)');
    expect(refusal({ email: 'ada@example' })).toMatch(/format email/);
    expect(refusal({ email: 'ada@example.org' })).toBeUndefined();
    expect(refusal({ homepage: 'example.org/page' })).toMatch(/"homepage" must be an absolute URI .* \(format uri\)/);
    expect(refusal({ homepage: 'https://example.org/page' })).toBeUndefined();
    expect(refusal({ born: '2026-02-30' })).toBe('the answer\'s field "born" must be a date as YYYY-MM-DD (format date)');
    expect(refusal({ born: '12/10/1815' })).toMatch(/format date/);
    expect(refusal({ born: '1815-12-10' })).toBeUndefined();
    expect(refusal({ at: '2026-12-02 17:00' })).toMatch(/"at" must be a date and time .* \(format date-time\)/);
    expect(refusal({ at: '2026-12-02T17:00:00Z' })).toBeUndefined();
    expect(refusal({ at: '2026-12-02T17:00:00.5+01:00' })).toBeUndefined();
  });

  it('a typed line is refused by the same rules, with the same words', () => {
    expect(parseElicitationLine(form.fields.name!, 'Al', 'name')).toEqual({ problem: '"name" must be at least 3 characters (minLength 3); it has 2' });
    expect(parseElicitationLine(form.fields.age!, '200', 'age')).toEqual({ problem: '"age" must be at most 120 (maximum 120)' });
    expect(parseElicitationLine(form.fields.email!, 'nope', 'email')).toEqual({ problem: '"email" must be an email address such as ada@example.org (format email)' });
    expect(parseElicitationLine(form.fields.tools!, 'a, d', 'tools')).toEqual({ problem: '"tools": not a valid choice: d (choices: a, b, c)' });
    expect(parseElicitationLine(form.fields.born!, '1815-12-10', 'born')).toEqual({ value: '1815-12-10' });
  });
});
