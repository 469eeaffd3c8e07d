import { describe, expect, it } from 'vitest';
import { schemaProblems } from '../../../plugins/flow/json-schema.js';

describe('Flow schema validation', () => {
  it('validates each schema against itself even when two share an $id', () => {
    const numbers = { $id: 'https://example.test/value.json', type: 'number' };
    const strings = { $id: 'https://example.test/value.json', type: 'string' };
    expect(schemaProblems(numbers, 1)).toBeUndefined();
    expect(schemaProblems(strings, 'a')).toBeUndefined();
    expect(schemaProblems(strings, 1)).toContain('must be string');
    expect(schemaProblems(numbers, 'a')).toContain('must be number');
  });
});
