/**
 * A fast path for the JSON Schemas most tools declare: one object with typed
 * properties, `required` and a boolean `additionalProperties`. Such a schema
 * is checked here without loading or compiling ajv (about 200 ms of CPU on
 * the first tool call), and reports the same violations ajv reports, in the
 * same order and with the same texts (test/core/flat-schema.test.ts checks
 * this against ajv). Any other schema, or a flat one that ajv would refuse
 * to compile, is left to ajv: `compileFlatSchema` returns undefined.
 */
import { dialectOfUri } from './json-schema.js';

/** One violation, with the fields of ajv's ErrorObject that describeViolations reads. */
export interface SchemaViolation {
  keyword: string;
  instancePath: string;
  message: string;
  params: Record<string, unknown>;
}

/** Returns the violations of `data`, or null when it is valid. */
export type FlatValidator = (data: unknown) => SchemaViolation[] | null;

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null', 'array', 'object']);
/** Annotation keys and the type the draft-07 meta-schema gives them (a wrong one makes ajv refuse the schema). */
const ANNOTATIONS: Record<string, (value: unknown) => boolean> = {
  title: (value) => typeof value === 'string',
  description: (value) => typeof value === 'string',
  $comment: (value) => typeof value === 'string',
  examples: Array.isArray,
  default: () => true,
};
/** Dialects in which these keywords mean the same as in draft-07. */
const SAME_DIALECTS = new Set(['draft-07', 'draft-06', '2019-09', '2020-12']);

type Primitive = string | number | boolean | null;

interface FlatProperty {
  name: string;
  /** JSON Pointer of the property, as ajv writes instancePath. */
  pointer: string;
  types?: readonly string[];
  typeParam?: string | readonly string[];
  enumValues?: readonly Primitive[];
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function annotationOnly(key: string, value: unknown): boolean {
  const check = ANNOTATIONS[key];
  return check !== undefined && check(value);
}

function distinct(values: readonly unknown[]): boolean {
  return new Set(values).size === values.length;
}

function typeList(type: unknown): readonly string[] | undefined {
  if (typeof type === 'string') return TYPES.has(type) ? [type] : undefined;
  if (!Array.isArray(type) || type.length === 0 || !distinct(type)) return undefined;
  return type.every((entry) => typeof entry === 'string' && TYPES.has(entry)) ? (type as string[]) : undefined;
}

function flatProperty(name: string, schema: unknown): FlatProperty | undefined {
  if (!isRecord(schema)) return undefined;
  const property: FlatProperty = { name, pointer: `/${name.replace(/~/g, '~0').replace(/\//g, '~1')}` };
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'type') {
      const types = typeList(value);
      if (!types) return undefined;
      property.types = types;
      property.typeParam = value as string | string[];
    } else if (key === 'enum') {
      if (!Array.isArray(value) || value.length === 0 || !distinct(value)) return undefined;
      if (!value.every((entry) => entry === null || ['string', 'number', 'boolean'].includes(typeof entry))) return undefined;
      property.enumValues = value as Primitive[];
    } else if (!annotationOnly(key, value)) return undefined;
  }
  return property;
}

/** ajv's type test for one JSON type name (with `strict: false`: no finiteness check for numbers). */
function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number';
    case 'integer':
      return typeof value === 'number' && !(value % 1) && !Number.isNaN(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    default:
      return isRecord(value);
  }
}

/**
 * The validator of a flat object schema, or undefined when the schema is not
 * one (ajv then compiles it). Accepted: `type: "object"`, `properties` whose
 * schemas hold only `type` (a name or a list of names), a primitive `enum`
 * and annotations, `required` (distinct names), a boolean
 * `additionalProperties`, annotations, and a `$schema` of draft-06 or later.
 */
export function compileFlatSchema(schema: unknown): FlatValidator | undefined {
  if (!isRecord(schema) || schema.type !== 'object') return undefined;
  let properties: FlatProperty[] = [];
  let required: readonly string[] = [];
  let closed = false;
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'type') continue;
    if (key === '$schema') {
      const dialect = typeof value === 'string' ? dialectOfUri(value) : undefined;
      if (!dialect || !SAME_DIALECTS.has(dialect)) return undefined;
    } else if (key === 'properties') {
      if (!isRecord(value) || Object.hasOwn(value, '__proto__')) return undefined;
      const list = Object.entries(value).map(([name, property]) => flatProperty(name, property));
      if (list.some((property) => property === undefined)) return undefined;
      properties = list as FlatProperty[];
    } else if (key === 'required') {
      if (!Array.isArray(value) || !value.every((name) => typeof name === 'string') || !distinct(value)) return undefined;
      required = value as string[];
    } else if (key === 'additionalProperties') {
      if (typeof value !== 'boolean') return undefined;
      closed = !value;
    } else if (!annotationOnly(key, value)) return undefined;
  }
  const known = new Set(properties.map((property) => property.name));
  return (data) => validateFlat(data, properties, required, closed ? known : undefined);
}

function validateFlat(data: unknown, properties: readonly FlatProperty[], required: readonly string[], known: ReadonlySet<string> | undefined): SchemaViolation[] | null {
  if (!isRecord(data)) return [{ keyword: 'type', instancePath: '', message: 'must be object', params: { type: 'object' } }];
  let errors: SchemaViolation[] | null = null;
  const add = (violation: SchemaViolation) => (errors ??= []).push(violation);
  // The order is ajv's: required, then additionalProperties, then each property's type and enum.
  for (const name of required) {
    if (data[name] === undefined) add({ keyword: 'required', instancePath: '', message: `must have required property '${name}'`, params: { missingProperty: name } });
  }
  if (known) {
    for (const key in data) {
      if (!known.has(key)) add({ keyword: 'additionalProperties', instancePath: '', message: 'must NOT have additional properties', params: { additionalProperty: key } });
    }
  }
  for (const property of properties) {
    const value = data[property.name];
    if (value === undefined) continue;
    if (property.types && !property.types.some((type) => hasType(value, type))) {
      add({ keyword: 'type', instancePath: property.pointer, message: `must be ${property.types.join(',')}`, params: { type: property.typeParam } });
    }
    if (property.enumValues && !property.enumValues.includes(value as Primitive)) {
      add({ keyword: 'enum', instancePath: property.pointer, message: 'must be equal to one of the allowed values', params: { allowedValues: property.enumValues } });
    }
  }
  return errors;
}
