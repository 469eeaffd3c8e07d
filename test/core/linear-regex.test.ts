/** JSON Schema `pattern`s (from MCP servers and result schemas) are matched in linear time too. */
import { describe, expect, it } from 'vitest';
import { createAjv } from '../../core/index.js';
import { schemaProblems } from '../../plugins/flow/json-schema.js';

describe('linear-time JSON Schema patterns', () => {
  it('a nested-quantifier pattern answers on a long string in every dialect', () => {
    const evil = `${'a'.repeat(50_000)}!`;
    for (const dialect of ['2020-12', '2019-09', 'draft-07', 'draft-06', 'draft-04'] as const) {
      const validate = createAjv(dialect).compile({ type: 'string', pattern: '^(a+)+$' });
      expect(validate(evil)).toBe(false);
      expect(validate('aaa')).toBe(true);
    }
    const properties = createAjv('2020-12').compile({ type: 'object', patternProperties: { '^(a|aa)+$': { type: 'number' } } });
    expect(properties({ [evil]: 'x' })).toBe(true);
    expect(properties({ aaaa: 'x' })).toBe(false);
  });

  it('Flow validation uses it as well', () => {
    expect(schemaProblems({ type: 'string', pattern: '^(a+)+$' }, `${'a'.repeat(50_000)}!`)).toMatch(/must match pattern/);
  });
});
