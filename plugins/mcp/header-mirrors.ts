/**
 * MCP 2026-07-28 request headers over HTTP: the values an intermediary may
 * route on (`Mcp-Method`, `Mcp-Name`, `Mcp-Param-*` mirrors of tool arguments
 * a tool's schema marks with `x-mcp-header`), encoded so no value can inject
 * a header. A tool whose annotations break the spec's constraints is rejected
 * at discovery (its other tools stay usable).
 */

/** One mirrored argument: its header name part and the `properties` path to it. */
export interface HeaderMirror {
  name: string;
  path: string[];
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const SAFE_INTEGER = Number.MAX_SAFE_INTEGER;
const SUBSCHEMA_KEYWORDS = ['items', 'prefixItems', 'additionalProperties', 'patternProperties', 'oneOf', 'anyOf', 'allOf', 'not', 'if', 'then', 'else', '$defs', 'definitions', 'dependentSchemas', 'contains', 'unevaluatedProperties', 'unevaluatedItems', 'propertyNames'];

/**
 * The mirrors a tool's input schema declares. Throws (with the reason a
 * status diagnostic shows) on an annotation the spec forbids: empty or not an
 * HTTP token, duplicated (case-insensitively), on a non-primitive or `number`
 * property, or reachable only through something other than `properties`.
 */
export function headerMirrors(schema: Record<string, unknown>): HeaderMirror[] {
  const mirrors: HeaderMirror[] = [];
  const seen = new Set<string>();
  const visit = (node: unknown, path: string[], reachable: boolean): void => {
    if (typeof node !== 'object' || node === null) return;
    if (Array.isArray(node)) {
      for (const item of node) visit(item, path, false);
      return;
    }
    const record = node as Record<string, unknown>;
    if ('x-mcp-header' in record) {
      const name = record['x-mcp-header'];
      const where = path.length > 0 ? `property "${path.join('.')}"` : 'the schema root';
      if (!reachable || path.length === 0) throw new Error(`x-mcp-header on ${where} is not reachable through "properties" alone`);
      if (typeof name !== 'string' || !TOKEN.test(name)) throw new Error(`x-mcp-header of ${where} must be a non-empty HTTP token`);
      const type = record.type;
      if (type !== 'string' && type !== 'integer' && type !== 'boolean') throw new Error(`x-mcp-header of ${where} is on a ${JSON.stringify(type ?? 'untyped')} property (only string, integer or boolean)`);
      if (seen.has(name.toLowerCase())) throw new Error(`x-mcp-header "${name}" is used twice`);
      seen.add(name.toLowerCase());
      mirrors.push({ name, path });
    }
    const properties = record.properties;
    if (typeof properties === 'object' && properties !== null && !Array.isArray(properties)) {
      for (const [key, child] of Object.entries(properties)) visit(child, [...path, key], reachable);
    }
    for (const keyword of SUBSCHEMA_KEYWORDS) if (keyword in record) visit(record[keyword], path, false);
  };
  visit(schema, [], true);
  return mirrors;
}

/** The `Mcp-Param-*` headers for one call's arguments; absent or null values send no header. */
export function mirroredHeaders(mirrors: readonly HeaderMirror[], args: Record<string, unknown>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const mirror of mirrors) {
    let value: unknown = args;
    for (const key of mirror.path) value = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
    if (value === undefined || value === null) continue;
    let text: string;
    if (typeof value === 'string') text = value;
    else if (typeof value === 'boolean') text = value ? 'true' : 'false';
    else if (typeof value === 'number' && Number.isInteger(value) && Math.abs(value) <= SAFE_INTEGER) text = String(value);
    else continue; // the argument check already refused anything else
    headers[`Mcp-Param-${mirror.name}`] = headerValue(text);
  }
  return headers;
}

/**
 * A value as the spec carries it: plain when it is visible ASCII (spaces
 * inside allowed), else `=?base64?…?=` of its UTF-8, also when it merely looks
 * like that sentinel.
 */
export function headerValue(text: string): string {
  const plain = /^[\x21-\x7e]([\x20-\x7e\t]*[\x21-\x7e])?$/.test(text) || text === '';
  const lookalike = text.startsWith('=?base64?') && text.endsWith('?=');
  return plain && !lookalike ? text : `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;
}

/** `Mcp-Method` and, for the methods that name a target, `Mcp-Name`. */
export function standardHeaders(method: string, params: Record<string, unknown> | undefined): Record<string, string> {
  const headers: Record<string, string> = { 'Mcp-Method': method };
  const target = method === 'resources/read' ? params?.uri : method === 'tools/call' || method === 'prompts/get' ? params?.name : undefined;
  if (typeof target === 'string') headers['Mcp-Name'] = headerValue(target);
  return headers;
}
