import { describe, expect, it } from 'vitest';
import { checkToolArguments } from '../../core/agent/tool-arguments.js';
import { createAjv, describeViolations, dialectOfUri } from '../../core/index.js';

describe('shared JSON Schema support', () => {
  it('reads the dialect of a $schema URI, http or https, with or without #', () => {
    expect(dialectOfUri('https://json-schema.org/draft/2020-12/schema')).toBe('2020-12');
    expect(dialectOfUri('https://json-schema.org/draft/2019-09/schema#')).toBe('2019-09');
    expect(dialectOfUri('http://json-schema.org/draft-07/schema#')).toBe('draft-07');
    expect(dialectOfUri('http://json-schema.org/draft-06/schema')).toBe('draft-06');
    expect(dialectOfUri('http://json-schema.org/draft-04/schema#')).toBe('draft-04');
    expect(dialectOfUri('https://example.test/my-dialect')).toBeUndefined();
  });

  it('builds an engine per dialect that honours that dialect', () => {
    // exclusiveMaximum is a boolean modifier in draft-04 and a number from draft-06 on.
    const draft04 = createAjv('draft-04').compile({ type: 'number', maximum: 5, exclusiveMaximum: true });
    expect(draft04(5)).toBe(false);
    expect(draft04(4)).toBe(true);
    const draft06 = createAjv('draft-06').compile({ $schema: 'http://json-schema.org/draft-06/schema#', type: 'number', exclusiveMaximum: 5 });
    expect(draft06(5)).toBe(false);
    const withFormats = createAjv('2020-12').compile({ type: 'string', format: 'email' });
    expect(withFormats('not an email')).toBe(false);
  });

  it('names how many violations it did not list instead of cutting silently', () => {
    const validate = createAjv('2020-12').compile({ type: 'object', required: Array.from({ length: 11 }, (_, i) => `f${i}`) });
    validate({});
    const text = describeViolations(validate.errors, '(the result)');
    expect(text.split('; ')).toHaveLength(9);
    expect(text).toMatch(/^\(the result\) must have required property 'f0'/);
    expect(text.endsWith('and 3 more problems')).toBe(true);
  });

  it('tool arguments report every violation count, for zod and JSON Schema tools alike', () => {
    const fields = Array.from({ length: 10 }, (_, i) => `f${i}`);
    const tool = { name: 't', description: 't', parameters: { type: 'object', required: fields }, execute: async () => ({ content: [] }) };
    const check = checkToolArguments(tool, {});
    expect(check).toMatchObject({ ok: false, error: expect.stringMatching(/and 2 more problems$/) });
  });
});
