/**
 * JSON Schema validation for Flow (inputs, step outputs, the result), on
 * Ajv's draft 2020-12 validator. Compiled validators are cached weakly per
 * schema object (a plan's schemas compile once per plan) and Ajv keeps
 * nothing, so flows compiled by a long-lived host do not accumulate and two
 * schemas sharing an `$id` do not clash.
 */
import { createRequire } from 'node:module';
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { linearRegExpEngine, type JsonSchema } from '../../core/index.js';

let engine: Ajv2020 | undefined;
const cache = new WeakMap<JsonSchema, ValidateFunction>();

/** The engine, made on the first compile: ajv (CommonJS) loads only when a flow's schemas are checked. */
function ajv(): Ajv2020 {
  if (!engine) {
    const { Ajv2020: Engine } = createRequire(import.meta.url)('ajv/dist/2020.js') as { Ajv2020: typeof Ajv2020 };
    engine = new Engine({ allErrors: true, strict: false, code: { regExp: linearRegExpEngine } });
  }
  return engine;
}

/** Compiles a schema; throws Ajv's error when the schema itself is invalid. */
export function compileSchema(schema: JsonSchema): ValidateFunction {
  let validate = cache.get(schema);
  if (!validate) {
    const compiler = ajv();
    try {
      validate = compiler.compile(schema);
    } finally {
      compiler.removeSchema(schema);
    }
    cache.set(schema, validate);
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
