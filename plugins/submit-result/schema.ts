/**
 * The result schema forms `submit_result` accepts:
 * - a JSON Schema (an object with `type`, `properties`, `$schema`, ... keywords),
 *   validated fully by ajv: 2020-12 by default; draft-07, draft-06, draft-04 and
 *   2019-09 when `$schema` names them. No remote `$ref` is ever fetched.
 * - the legacy flat form `{"field": "type"}`: each field is required, extra
 *   fields are allowed.
 * - no schema: any JSON value, including arrays, scalars and null.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import AjvDraft04 from 'ajv-draft-04';
import addFormatsModule from 'ajv-formats';
import draft06MetaSchema from 'ajv/dist/refs/json-schema-draft-06.json' with { type: 'json' };

const addFormats = addFormatsModule as unknown as (ajv: unknown) => void;

/** A checked result: ok, or a message for the model. */
export type ResultCheck = { ok: true } | { ok: false; error: string };

const FLAT_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null', 'any']);
const SCHEMA_KEYWORDS = ['$schema', '$ref', 'type', 'properties', 'items', 'enum', 'const', 'anyOf', 'oneOf', 'allOf', 'not', 'required', '$defs', 'definitions'];

type Dialect = '2020-12' | '2019-09' | 'draft-07' | 'draft-06' | 'draft-04';

function dialectOf(schema: Record<string, unknown>): Dialect {
  const uri = schema.$schema;
  if (uri === undefined) return '2020-12';
  if (typeof uri !== 'string') throw new Error('$schema must be a string');
  if (uri.includes('2020-12')) return '2020-12';
  if (uri.includes('2019-09')) return '2019-09';
  if (uri.includes('draft-07')) return 'draft-07';
  if (uri.includes('draft-06')) return 'draft-06';
  if (uri.includes('draft-04')) return 'draft-04';
  throw new Error(`unknown JSON Schema dialect ${JSON.stringify(uri)}`);
}

type Validator = { compile(schema: object): ValidateFunction; removeSchema(schema: object): unknown };
const validators = new Map<Dialect, Validator>();

function validatorFor(dialect: Dialect): Validator {
  let ajv = validators.get(dialect);
  if (!ajv) {
    // strict: false accepts the annotations models and hosts write (title, examples, ...); no loadSchema, so no remote refs.
    const options = { strict: false, allErrors: true, validateFormats: true };
    if (dialect === '2020-12') ajv = new Ajv2020(options);
    else if (dialect === '2019-09') ajv = new Ajv2019(options);
    else if (dialect === 'draft-04') ajv = new (AjvDraft04 as unknown as new (o: object) => Ajv)(options);
    else {
      const draft = new Ajv(options);
      if (dialect === 'draft-06') draft.addMetaSchema(draft06MetaSchema);
      ajv = draft;
    }
    addFormats(ajv);
    validators.set(dialect, ajv);
  }
  return ajv;
}

const compiled = new WeakMap<object, ValidateFunction>();

function isJsonSchema(schema: Record<string, unknown>): boolean {
  return SCHEMA_KEYWORDS.some((keyword) => keyword in schema) || Object.keys(schema).length === 0;
}

/** The first violations ajv found (allErrors), and how many more there are. */
function describeErrors(errors: ErrorObject[] | null | undefined): string {
  const all = errors ?? [];
  const shown = 8;
  const listed = all
    .slice(0, shown)
    .map((error) => `${error.instancePath || '(the result)'} ${error.message ?? 'is invalid'}${error.keyword === 'additionalProperties' ? ` (${String((error.params as { additionalProperty?: string }).additionalProperty)})` : ''}`)
    .join('; ');
  return all.length > shown ? `${listed}; and ${all.length - shown} more problems` : listed;
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
  return validate(value) ? { ok: true } : { ok: false, error: describeErrors(validate.errors) };
}
