/**
 * JSON Schema validation for Flow (inputs, step outputs, the result), on
 * Ajv's draft 2020-12 validator. Compiled validators are cached per schema
 * text so a run compiles each schema once.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import type { JsonSchema } from '../../core/index.js';

const ajv = new Ajv2020({ allErrors: true, strict: false });
const cache = new Map<string, ValidateFunction>();

/** Compiles a schema; throws Ajv's error when the schema itself is invalid. */
export function compileSchema(schema: JsonSchema): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = cache.get(key);
  if (!validate) {
    validate = ajv.compile(schema);
    cache.set(key, validate);
  }
  return validate;
}

/** Validates a value; returns undefined when it fits, else a one-line list of the problems. */
export function schemaProblems(schema: JsonSchema, value: unknown): string | undefined {
  const validate = compileSchema(schema);
  if (validate(value)) return undefined;
  return (validate.errors ?? []).map(describeAjvError).join('; ');
}

function describeAjvError(error: ErrorObject): string {
  return `${error.instancePath || 'the value'} ${error.message ?? 'is invalid'}`;
}
