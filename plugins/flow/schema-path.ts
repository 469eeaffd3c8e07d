/**
 * Static typing for Flow references: find the schema a path points to inside
 * a JSON Schema, and decide whether a value of one schema fits another.
 */
import type { JsonSchema } from '../../core/index.js';

/** The JSON types a schema admits, or undefined when it does not say. */
export function schemaTypes(schema: JsonSchema): Set<string> | undefined {
  const type = schema.type;
  if (typeof type === 'string') return new Set([type]);
  if (Array.isArray(type)) return new Set(type.map(String));
  const constants = Array.isArray(schema.enum) ? schema.enum : 'const' in schema ? [schema.const] : undefined;
  return constants ? new Set(constants.map(jsonType)) : undefined;
}

/** The JSON type of a value (integers are "integer"). */
export function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** A human name for a schema's type. */
export function describeType(schema: JsonSchema): string {
  const types = schemaTypes(schema);
  return types ? [...types].join(' | ') : 'any';
}

/** The result of walking a path: the schema found, or the segment that is missing and what exists there. */
export type PathLookup = { ok: true; schema: JsonSchema } | { ok: false; missing: string; at: string[]; available: string[] };

/** Walks `path` through object properties and array items. Untyped schemas admit any path. */
export function schemaAtPath(schema: JsonSchema, path: readonly string[]): PathLookup {
  let current = schema;
  for (let i = 0; i < path.length; i++) {
    const segment = path[i]!;
    const types = schemaTypes(current);
    if (!types) return { ok: true, schema: {} };
    const properties = isSchema(current.properties) ? (current.properties as Record<string, JsonSchema>) : undefined;
    if (types.has('object') && properties && Object.hasOwn(properties, segment)) {
      current = properties[segment]!;
    } else if (types.has('object') && isSchema(current.additionalProperties)) {
      current = current.additionalProperties as JsonSchema;
    } else if (types.has('array') && /^\d+$/.test(segment) && isSchema(current.items)) {
      current = current.items as JsonSchema;
    } else {
      return { ok: false, missing: segment, at: path.slice(0, i), available: properties ? Object.keys(properties) : [] };
    }
  }
  return { ok: true, schema: current };
}

/** Whether every value of `source` is accepted by `target`, as far as their types tell. */
export function typeFits(source: JsonSchema, target: JsonSchema): boolean {
  const from = schemaTypes(source);
  const to = schemaTypes(target);
  if (!from || !to) return true;
  return [...from].every((type) => to.has(type) || (type === 'integer' && to.has('number')));
}

function isSchema(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
