/**
 * The result schema forms `submit_result` accepts:
 * - a JSON Schema (an object with `type`, `properties`, `$schema`, ... keywords),
 *   validated fully by ajv: 2020-12 by default; draft-07, draft-06, draft-04 and
 *   2019-09 when `$schema` names them. No remote `$ref` is ever fetched.
 * - the legacy flat form `{"field": "type"}`: each field is required, extra
 *   fields are allowed.
 * - no schema: any JSON value, including arrays, scalars and null.
 */
import type { Ajv, ValidateFunction } from 'ajv';
import { createAjv, describeViolations, dialectOfUri, type SchemaDialect } from '../../core/index.js';

/** A checked result: ok, or a message for the model. */
export type ResultCheck = { ok: true } | { ok: false; error: string };

const FLAT_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null', 'any']);
const SCHEMA_KEYWORDS = ['$schema', '$ref', 'type', 'properties', 'items', 'enum', 'const', 'anyOf', 'oneOf', 'allOf', 'not', 'required', '$defs', 'definitions'];

function dialectOf(schema: Record<string, unknown>): SchemaDialect {
  const uri = schema.$schema;
  if (uri === undefined) return '2020-12';
  if (typeof uri !== 'string') throw new Error('$schema must be a string');
  const dialect = dialectOfUri(uri);
  if (!dialect) throw new Error(`unknown JSON Schema dialect ${JSON.stringify(uri)}`);
  return dialect;
}

const validators = new Map<SchemaDialect, Ajv>();

function validatorFor(dialect: SchemaDialect): Ajv {
  let ajv = validators.get(dialect);
  if (!ajv) {
    ajv = createAjv(dialect);
    validators.set(dialect, ajv);
  }
  return ajv;
}

const compiled = new WeakMap<object, ValidateFunction>();

function isJsonSchema(schema: Record<string, unknown>): boolean {
  return SCHEMA_KEYWORDS.some((keyword) => keyword in schema) || Object.keys(schema).length === 0;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function checkFlat(schema: Record<string, string>, value: unknown): ResultCheck {
  if (jsonType(value) !== 'object') return { ok: false, error: `the result must be an object with the fields ${Object.keys(schema).join(', ')}` };
  const record = value as Record<string, unknown>;
  const problems: string[] = [];
  for (const [field, type] of Object.entries(schema)) {
    if (!(field in record)) problems.push(`missing required field "${field}"`);
    else if (type !== 'any' && !(jsonType(record[field]) === type || (type === 'number' && jsonType(record[field]) === 'integer'))) {
      problems.push(`field "${field}" must be ${type}, not ${jsonType(record[field])}`);
    }
  }
  return problems.length ? { ok: false, error: problems.join('; ') } : { ok: true };
}

/**
 * Checks `value` against a result schema. Throws (with a message for the
 * host) when the schema itself is unusable; returns a model-facing error when
 * the value does not match.
 */
export function checkResult(schema: unknown, value: unknown): ResultCheck {
  if (schema === undefined || schema === null) return { ok: true };
  if (typeof schema !== 'object' || Array.isArray(schema)) throw new Error('result_schema must be a JSON Schema object or a flat {"field": "type"} object');
  const record = schema as Record<string, unknown>;
  if (!isJsonSchema(record)) {
    for (const [field, type] of Object.entries(record)) {
      if (typeof type !== 'string' || !FLAT_TYPES.has(type)) {
        throw new Error(`flat result_schema field "${field}" must name a type (${[...FLAT_TYPES].join(', ')})`);
      }
    }
    return checkFlat(record as Record<string, string>, value);
  }
  let validate = compiled.get(record);
  if (!validate) {
    const ajv = validatorFor(dialectOf(record));
    validate = ajv.compile(record);
    // The compiled function stands alone; dropping the schema from the shared instance keeps it from
    // holding every schema ever seen and lets another schema object reuse the same $id.
    ajv.removeSchema(record);
    compiled.set(record, validate);
  }
  return validate(value) ? { ok: true } : { ok: false, error: describeViolations(validate.errors, '(the result)') };
}
