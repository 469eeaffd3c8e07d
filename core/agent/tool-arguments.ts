/**
 * Tool argument validation and the model-facing tool definition. A tool's
 * parameters are a zod schema (its parsed output is what execute receives)
 * or a JSON Schema: a flat object schema is checked by core/flat-schema.ts
 * (ajv's texts, without loading ajv), any other by ajv (draft picked from
 * `$schema`, no remote references). Compiled validators are cached per
 * schema object, weakly: the shared ajv engines keep nothing.
 */
import type { Ajv, ValidateFunction } from 'ajv';
import { z, type ZodType } from 'zod';
import { compileFlatSchema, type SchemaViolation } from '../flat-schema.js';
import { createAjv, describeViolations, dialectOfUri, type SchemaDialect } from '../json-schema.js';
import type { AgentTool, JsonSchema, ToolDefinition } from './tool-types.js';

/** Validation outcome: the arguments execute receives, or a message for the model. */
export type ArgumentCheck = { ok: true; args: Record<string, unknown> } | { ok: false; error: string };

/** The zod schema of a tool's parameters, or undefined for JSON Schema. */
export function zodSchemaOf(tool: AgentTool): ZodType | undefined {
  const schema = tool.parameters as Partial<ZodType>;
  return typeof schema.safeParse === 'function' ? (schema as ZodType) : undefined;
}

/** A compiled check: the violations of a value, or null when it is valid. */
type Check = (args: unknown) => readonly SchemaViolation[] | null;

const validators = new WeakMap<object, Check | Error>();
const definitions = new WeakMap<AgentTool, ToolDefinition>();
const engines = new Map<SchemaDialect, Ajv>();

/** A local tool's schema without a known `$schema` is read as draft-07, the dialect most tool schemas are written in. */
function engineFor(schema: JsonSchema): Ajv {
  const dialect = (typeof schema.$schema === 'string' ? dialectOfUri(schema.$schema) : undefined) ?? 'draft-07';
  let engine = engines.get(dialect);
  if (!engine) {
    engine = createAjv(dialect);
    engines.set(dialect, engine);
  }
  return engine;
}

/** ajv's validator as a Check. */
function ajvCheck(validate: ValidateFunction): Check {
  return (args) => (validate(args) ? null : (validate.errors as SchemaViolation[]));
}

function compileWithAjv(schema: JsonSchema): Check | Error {
  const engine = engineFor(schema);
  try {
    return ajvCheck(engine.compile(schema));
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  } finally {
    // The engines are shared by the process: ajv would otherwise keep every schema
    // (and its $id) forever, so tool lists that change grow memory and clash on $id.
    engine.removeSchema(schema);
  }
}

function compile(schema: JsonSchema): Check | Error {
  let compiled = validators.get(schema);
  if (compiled === undefined) {
    compiled = compileFlatSchema(schema) ?? compileWithAjv(schema);
    validators.set(schema, compiled);
  }
  return compiled;
}

/** Validates `args` against the tool's parameters. */
export function checkToolArguments(tool: AgentTool, args: unknown): ArgumentCheck {
  const zod = zodSchemaOf(tool);
  if (zod) {
    const parsed = zod.safeParse(args);
    if (parsed.success) return { ok: true, args: parsed.data as Record<string, unknown> };
    const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
    const more = issues.length > 8 ? `; and ${issues.length - 8} more problems` : '';
    return { ok: false, error: issues.slice(0, 8).join('; ') + more };
  }
  const check = compile(tool.parameters as JsonSchema);
  if (check instanceof Error) return { ok: false, error: `the tool's parameter schema is invalid: ${check.message}` };
  const violations = check(args);
  if (violations === null) return { ok: true, args: args as Record<string, unknown> };
  return { ok: false, error: describeViolations(violations) };
}

/** What the model is told about a tool (cached per tool object). */
export function toolDefinition(tool: AgentTool): ToolDefinition {
  const cached = definitions.get(tool);
  if (cached) return cached;
  const zod = zodSchemaOf(tool);
  const parameters = zod ? (z.toJSONSchema(zod, { io: 'input' }) as JsonSchema) : (tool.parameters as JsonSchema);
  const definition: ToolDefinition = { name: tool.name, description: tool.description, parameters };
  definitions.set(tool, definition);
  return definition;
}
