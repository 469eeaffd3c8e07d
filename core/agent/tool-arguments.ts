/**
 * Tool argument validation and the model-facing tool definition. A tool's
 * parameters are a zod schema (its parsed output is what execute receives)
 * or a JSON Schema validated by ajv (draft picked from `$schema`, no remote
 * references). Compiled validators are cached per schema object, weakly:
 * the shared ajv engines keep nothing.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import AjvDraft04Module from 'ajv-draft-04';
import addFormatsModule from 'ajv-formats';
import { z, type ZodType } from 'zod';
import type { AgentTool, JsonSchema, ToolDefinition } from './tool-types.js';

type AnyAjv = Ajv | Ajv2019 | Ajv2020;
// ajv-draft-04 is CommonJS: under NodeNext its default import is the module object.
const AjvDraft04 = ((AjvDraft04Module as unknown as { default?: unknown }).default ?? AjvDraft04Module) as unknown as typeof Ajv;
const addFormats = addFormatsModule as unknown as (ajv: AnyAjv) => void;

/** Validation outcome: the arguments execute receives, or a message for the model. */
export type ArgumentCheck = { ok: true; args: Record<string, unknown> } | { ok: false; error: string };

/** The zod schema of a tool's parameters, or undefined for JSON Schema. */
export function zodSchemaOf(tool: AgentTool): ZodType | undefined {
  const schema = tool.parameters as Partial<ZodType>;
  return typeof schema.safeParse === 'function' ? (schema as ZodType) : undefined;
}

const validators = new WeakMap<object, ValidateFunction | Error>();
const definitions = new WeakMap<AgentTool, ToolDefinition>();
const engines = new Map<string, AnyAjv>();

function engineFor(schema: JsonSchema): AnyAjv {
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
  const key = dialect.includes('2020-12') ? '2020' : dialect.includes('2019-09') ? '2019' : dialect.includes('draft-04') ? '04' : '07';
  let engine = engines.get(key);
  if (!engine) {
    const options = { allErrors: true, strict: false };
    engine = key === '2020' ? new Ajv2020(options) : key === '2019' ? new Ajv2019(options) : key === '04' ? new AjvDraft04(options) : new Ajv(options);
    addFormats(engine);
    engines.set(key, engine);
  }
  return engine;
}

function compile(schema: JsonSchema): ValidateFunction | Error {
  let compiled = validators.get(schema);
  if (compiled === undefined) {
    const engine = engineFor(schema);
    try {
      compiled = engine.compile(schema);
    } catch (error) {
      compiled = error instanceof Error ? error : new Error(String(error));
    } finally {
      // The engines are shared by the process: ajv would otherwise keep every schema
      // (and its $id) forever, so tool lists that change grow memory and clash on $id.
      engine.removeSchema(schema);
    }
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
    const issues = parsed.error.issues.slice(0, 5).map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
    return { ok: false, error: issues.join('; ') };
  }
  const validate = compile(tool.parameters as JsonSchema);
  if (validate instanceof Error) return { ok: false, error: `the tool's parameter schema is invalid: ${validate.message}` };
  if (validate(args)) return { ok: true, args: args as Record<string, unknown> };
  const issues = (validate.errors ?? []).slice(0, 5).map((issue) => `${issue.instancePath || '(root)'} ${issue.message ?? 'is invalid'}`);
  return { ok: false, error: issues.join('; ') };
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
