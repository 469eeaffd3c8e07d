/**
 * JSON Schema checks for advertised MCP schemas, on ajv. The dialect is the
 * one a schema declares in `$schema` (2020-12 when absent; 2019-09, draft-07,
 * draft-06 and draft-04 honoured); an unknown dialect fails closed. Nothing
 * is ever fetched: ajv gets no `loadSchema`, so a `$ref` that does not resolve
 * inside the advertised document is an error at discovery.
 */
import { createRequire } from 'node:module';
import { Ajv, type AnySchema, type AnySchemaObject, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import AjvDraft04Module from 'ajv-draft-04';
import addFormatsModule from 'ajv-formats';
import { ErrorCodes, LIMITS, XdogError } from '../../core/index.js';

const require = createRequire(import.meta.url);
const draft06MetaSchema = require('ajv/dist/refs/json-schema-draft-06.json') as AnySchemaObject;

// Both packages are CommonJS with a default export; NodeNext types see the module object.
const AjvDraft04 = (AjvDraft04Module as unknown as { default: typeof Ajv }).default ?? (AjvDraft04Module as unknown as typeof Ajv);
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

/** The JSON Schema dialects MCP schemas may declare. */
export type SchemaDialect = '2020-12' | '2019-09' | 'draft-07' | 'draft-06' | 'draft-04';

const DIALECTS: Record<string, SchemaDialect> = {
  'https://json-schema.org/draft/2020-12/schema': '2020-12',
  'https://json-schema.org/draft/2019-09/schema': '2019-09',
  'http://json-schema.org/draft-07/schema': 'draft-07',
  'http://json-schema.org/draft-06/schema': 'draft-06',
  'http://json-schema.org/draft-04/schema': 'draft-04',
};

/** A compiled advertised schema. */
export interface CompiledSchema {
  dialect: SchemaDialect;
  /** Throws INVALID_ARGUMENT naming every violation. */
  check(value: unknown, what: string): void;
}

/** The dialect a schema declares; throws for one this client does not know. */
export function schemaDialect(schema: Record<string, unknown>): SchemaDialect {
  const declared = schema.$schema;
  if (declared === undefined) return '2020-12';
  const dialect = typeof declared === 'string' ? DIALECTS[declared.replace(/#$/, '')] : undefined;
  if (!dialect) {
    throw new XdogError(ErrorCodes.MCP_FAILED, `unsupported JSON Schema dialect ${JSON.stringify(declared)}`, {
      hint: 'the server must declare 2020-12, 2019-09, draft-07, draft-06 or draft-04',
    });
  }
  return dialect;
}

function createValidator(dialect: SchemaDialect): Ajv {
  // strict: false because servers' schemas carry annotations ajv does not know;
  // each compile gets its own instance so two tools' `$id`s never collide.
  const options = { strict: false, allErrors: true, logger: false as const };
  switch (dialect) {
    case '2020-12':
      return addFormats(new Ajv2020(options));
    case '2019-09':
      return addFormats(new Ajv2019(options));
    case 'draft-07':
      return addFormats(new Ajv(options));
    case 'draft-06': {
      const ajv = new Ajv(options);
      ajv.addMetaSchema(draft06MetaSchema);
      return addFormats(ajv);
    }
    case 'draft-04':
      return addFormats(new AjvDraft04(options));
  }
}

/**
 * Compiles an advertised schema. Throws MCP_FAILED for an oversized schema,
 * an unknown dialect, an invalid schema or a reference outside the document.
 */
export function compileSchema(schema: unknown, what: string): CompiledSchema {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new XdogError(ErrorCodes.MCP_FAILED, `${what} is not a JSON Schema object`);
  }
  const bytes = Buffer.byteLength(JSON.stringify(schema));
  if (bytes > LIMITS.mcpSchemaBytes) {
    throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `${what} is ${bytes} bytes, over the ${LIMITS.mcpSchemaBytes}-byte schema limit`);
  }
  const dialect = schemaDialect(schema as Record<string, unknown>);
  let validate: ValidateFunction;
  try {
    validate = createValidator(dialect).compile(schema as AnySchema);
  } catch (error) {
    const message = (error as Error).message;
    const external = /can't resolve reference|missingRef|MissingRef/i.test(message) || (error as { missingRef?: string }).missingRef;
    throw new XdogError(
      ErrorCodes.MCP_FAILED,
      external
        ? `${what} has a $ref outside the advertised document (${(error as { missingRef?: string }).missingRef ?? message}); external schemas are never fetched`
        : `${what} is not a valid ${dialect} JSON Schema: ${message}`,
      { hint: 'the server must advertise a self-contained schema' },
    );
  }
  return {
    dialect,
    check(value, label) {
      if (validate(value)) return;
      throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `${label} do not match the schema: ${formatErrors(validate.errors ?? [])}`, {
        hint: 'fix the values named above',
      });
    },
  };
}

/** The first violations ajv found (allErrors), and how many more there are. */
function formatErrors(errors: ErrorObject[]): string {
  const shown = 8;
  const listed = errors
    .slice(0, shown)
    .map((error) => `${error.instancePath || '(root)'} ${error.message ?? 'is invalid'}`)
    .join('; ');
  return errors.length > shown ? `${listed}; and ${errors.length - shown} more problems` : listed;
}
