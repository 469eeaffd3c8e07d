import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkToolArguments } from '../../core/agent/tool-arguments.js';
import { compileFlatSchema } from '../../core/flat-schema.js';
import { createAjv, describeViolations } from '../../core/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const engines = { 'draft-07': createAjv('draft-07'), '2020-12': createAjv('2020-12') };
/** The engine the tool check would use for this schema's `$schema`. */
const engineOf = (schema: { $schema?: string }) => (schema.$schema?.includes('2020-12') ? engines['2020-12'] : engines['draft-07']);

/** The fields of a violation that the texts are made of. */
const shape = (errors: readonly { keyword: string; instancePath: string; message?: string; params: unknown }[] | null | undefined) =>
  (errors ?? []).map(({ keyword, instancePath, message, params }) => ({ keyword, instancePath, message, params }));

const NAMES = ['path', 'count', 'a/b', 'x~y', 'mode', 'toString', ''];
const TYPE_NAMES = ['string', 'number', 'integer', 'boolean', 'null', 'array', 'object'] as const;
const primitive = fc.oneof(fc.string({ maxLength: 3 }), fc.integer({ min: -3, max: 3 }), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null));
const value = fc.oneof(primitive, fc.constant([]), fc.constant({}), fc.array(primitive, { maxLength: 2 }));
const propertySchema = fc.record(
  {
    type: fc.oneof(fc.constantFrom(...TYPE_NAMES), fc.uniqueArray(fc.constantFrom(...TYPE_NAMES), { minLength: 1, maxLength: 3 })),
    enum: fc.uniqueArray(primitive, { minLength: 1, maxLength: 3, comparator: 'SameValueZero' }),
    description: fc.string({ maxLength: 5 }),
  },
  { requiredKeys: [] },
);
const flatSchema = fc.record(
  {
    type: fc.constant('object'),
    properties: fc.dictionary(fc.constantFrom(...NAMES), propertySchema, { maxKeys: 4 }),
    required: fc.uniqueArray(fc.constantFrom(...NAMES, 'absent'), { maxLength: 3 }),
    additionalProperties: fc.boolean(),
    title: fc.string({ maxLength: 4 }),
    $schema: fc.constantFrom('http://json-schema.org/draft-07/schema#', 'https://json-schema.org/draft/2020-12/schema'),
  },
  { requiredKeys: ['type'] },
);
const data = fc.oneof(
  { weight: 6, arbitrary: fc.dictionary(fc.constantFrom(...NAMES, 'extra', 'other'), value, { maxKeys: 5 }) },
  { weight: 1, arbitrary: value },
);

describe('the flat JSON Schema fast path', () => {
  it('reports exactly the violations ajv reports, in its order, for generated flat schemas and values', () => {
    fc.assert(
      fc.property(flatSchema, data, (schema, value) => {
        const validate = compileFlatSchema(schema);
        expect(validate).toBeDefined();
        const ajv = engineOf(schema);
        const ajvValidate = ajv.compile(schema);
        ajv.removeSchema(schema);
        ajvValidate(value);
        const expected = shape(ajvValidate.errors);
        expect(shape(validate!(value))).toEqual(expected);
        // And so the tool sees ajv's text.
        const check = checkToolArguments({ name: 't', description: 't', parameters: schema, execute: async () => ({ content: [] }) }, value);
        expect(check).toEqual(expected.length === 0 ? { ok: true, args: value } : { ok: false, error: describeViolations(ajvValidate.errors) });
      }),
      { numRuns: 200 },
    );
  });

  it('leaves every other schema to ajv, including flat-looking ones ajv would refuse', () => {
    const others = [
      { type: 'object', properties: { a: { type: 'string', minLength: 1 } } },
      { type: 'object', properties: { a: { type: 'string', format: 'email' } } },
      { type: 'object', properties: { a: { type: 'object', properties: {} } } },
      { type: 'object', additionalProperties: { type: 'string' } },
      { type: 'object', required: ['a', 'a'] },
      { type: 'object', required: 'a' },
      { type: 'object', title: 5 },
      { type: 'object', properties: { a: { type: 'text' } } },
      { type: 'object', properties: { a: { enum: [{ deep: true }] } } },
      { type: ['object', 'null'] },
      { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' },
      { type: 'object', patternProperties: { '^x': { type: 'string' } } },
    ];
    for (const schema of others) expect(compileFlatSchema(schema), JSON.stringify(schema)).toBeUndefined();
    // A schema ajv refuses still gets ajv's refusal through the tool check.
    const check = checkToolArguments({ name: 't', description: 't', parameters: { type: 'object', required: ['a', 'a'] }, execute: async () => ({ content: [] }) }, {});
    expect(check).toMatchObject({ ok: false, error: expect.stringMatching(/^the tool's parameter schema is invalid/) });
  });

  it('checks a flat tool schema without loading ajv, and loads it for the first schema that needs it', () => {
    const script = `
      import { createRequire } from 'node:module';
      import { checkToolArguments } from './dist/core/agent/tool-arguments.js';
      const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((file) => file.includes('/node_modules/ajv/'));
      const tool = (parameters) => ({ name: 't', description: 't', parameters, execute: async () => ({ content: [] }) });
      const flat = checkToolArguments(tool({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false }), { path: 1 });
      const before = loaded();
      const nested = checkToolArguments(tool({ type: 'object', properties: { path: { type: 'string', minLength: 2 } } }), { path: 'x' });
      console.log(JSON.stringify({ flat, before, nested, after: loaded() }));`;
    const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' }));
    expect(out).toEqual({
      flat: { ok: false, error: '/path must be string' },
      before: false,
      nested: { ok: false, error: '/path must NOT have fewer than 2 characters' },
      after: true,
    });
  });
});
