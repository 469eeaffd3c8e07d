/**
 * JSON Schema checks for advertised MCP schemas, on ajv. The dialect is the
 * one a schema declares in `$schema` (2020-12 when absent; 2019-09, draft-07,
 * draft-06 and draft-04 honoured); an unknown dialect fails closed. Nothing
 * is ever fetched: ajv gets no `loadSchema`, so a `$ref` that does not resolve
 * inside the advertised document is an error at discovery.
 */
import type { AnySchema, ValidateFunction } from 'ajv';
import { createAjv, describeViolations, dialectOfUri, ErrorCodes, LIMITS, XdogError, type SchemaDialect } from '../../core/index.js';

export type { SchemaDialect };

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
  const dialect = typeof declared === 'string' ? dialectOfUri(declared) : undefined;
  if (!dialect) {
    throw new XdogError(ErrorCodes.MCP_FAILED, `unsupported JSON Schema dialect ${JSON.stringify(declared)}`, {
      hint: 'the server must declare 2020-12, 2019-09, draft-07, draft-06 or draft-04',
    });
  }
  return dialect;
}

/** Why a schema did not compile; a $ref that cannot be resolved is either external (never fetched) or dangling in the document. */
function describeCompileError(error: unknown, schema: Record<string, unknown>, what: string, dialect: string): string {
  const message = (error as Error).message;
  const missing = error as { missingRef?: string; missingSchema?: string };
  if (!missing.missingRef && !/can't resolve reference/i.test(message)) return `${what} is not a valid ${dialect} JSON Schema: ${message}`;
  const ref = missing.missingRef ?? message;
  // ajv names the document a missing ref lives in: none (or the schema's own $id) means it points into this document.
  const ownId = typeof schema.$id === 'string' ? schema.$id.replace(/#$/, '') : '';
  const inDocument = missing.missingSchema !== undefined && (missing.missingSchema === '' || missing.missingSchema === ownId);
  if (inDocument) return `${what} has a $ref that points to nothing in the document (${ref})`;
  return `${what} has a $ref outside the advertised document (${ref}); external schemas are never fetched`;
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
    // A fresh engine per schema, so two tools' `$id`s never collide.
    validate = createAjv(dialect).compile(schema as AnySchema);
  } catch (error) {
    throw new XdogError(ErrorCodes.MCP_FAILED, describeCompileError(error, schema as Record<string, unknown>, what, dialect), {
      hint: 'the server must advertise a self-contained schema',
    });
  }
  return {
    dialect,
    check(value, label) {
      if (validate(value)) return;
      throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `${label} do not match the schema: ${describeViolations(validate.errors)}`, {
        hint: 'fix the values named above',
      });
    },
  };
}
