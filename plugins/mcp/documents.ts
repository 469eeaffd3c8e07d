/**
 * Inert previews: catalogs of resources, resource templates and prompts,
 * resource reads, prompt gets and completions, validated and returned as
 * frozen data. Nothing here calls a model, follows a link or inserts a
 * message; `draftText` refuses binary blocks instead of dropping them.
 */
import { ErrorCodes, LIMITS, XdogError } from '../../core/index.js';
import { deepFreeze, parseBlock, parseResourceContents, type McpBlock } from './content.js';

/** Catalog kinds `McpRegistry.catalog` lists. */
export type McpCatalogKind = 'resource' | 'template' | 'prompt';

export interface McpResourceEntry {
  readonly uri: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
}
export interface McpTemplateEntry {
  readonly uriTemplate: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
}
export interface McpPromptArgument {
  readonly name: string;
  readonly description?: string;
  readonly required: boolean;
}
export interface McpPromptEntry {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly arguments: readonly McpPromptArgument[];
}

/** A frozen resource read or prompt get. */
export type McpDocument =
  | { readonly kind: 'resource'; readonly server: string; readonly uri: string; readonly blocks: readonly McpBlock[] }
  | {
      readonly kind: 'prompt';
      readonly server: string;
      readonly name: string;
      readonly description?: string;
      readonly messages: ReadonlyArray<{ readonly role: 'user' | 'assistant'; readonly block: McpBlock }>;
    };

/** A frozen completion answer. */
export interface McpCompletion {
  readonly values: readonly string[];
  readonly total?: number;
  readonly hasMore: boolean;
}

/** The list method and result key of each catalog kind. */
export const CATALOG_METHODS: Record<McpCatalogKind, { method: string; key: string; capability: 'resources' | 'prompts' }> = {
  resource: { method: 'resources/list', key: 'resources', capability: 'resources' },
  template: { method: 'resources/templates/list', key: 'resourceTemplates', capability: 'resources' },
  prompt: { method: 'prompts/list', key: 'prompts', capability: 'prompts' },
};

function fail(where: string, problem: string): never {
  throw new XdogError(ErrorCodes.MCP_FAILED, `${where}: ${problem}`);
}

function record(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(where, 'entry is not an object');
  return value as Record<string, unknown>;
}

function str(entry: Record<string, unknown>, key: string, where: string, required: true): string;
function str(entry: Record<string, unknown>, key: string, where: string, required?: false): string | undefined;
function str(entry: Record<string, unknown>, key: string, where: string, required = false): string | undefined {
  const value = entry[key];
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'string' || (required && value === '')) fail(where, `"${key}" must be a ${required ? 'non-empty ' : ''}string`);
  return value;
}

function optional<T extends object>(fields: T): T {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as T;
}

/** Validates a raw catalog; duplicate identities fail. */
export function parseCatalog(kind: McpCatalogKind, items: unknown[], server: string): readonly (McpResourceEntry | McpTemplateEntry | McpPromptEntry)[] {
  const seen = new Set<string>();
  const entries = items.map((item, index) => {
    const where = `MCP server "${server}" ${kind} catalog entry ${index}`;
    const raw = record(item, where);
    const common = { name: str(raw, 'name', where, true), title: str(raw, 'title', where), description: str(raw, 'description', where) };
    let entry: McpResourceEntry | McpTemplateEntry | McpPromptEntry;
    let identity: string;
    if (kind === 'resource') {
      entry = optional({ uri: str(raw, 'uri', where, true), ...common, mimeType: str(raw, 'mimeType', where) });
      identity = entry.uri;
    } else if (kind === 'template') {
      entry = optional({ uriTemplate: str(raw, 'uriTemplate', where, true), ...common, mimeType: str(raw, 'mimeType', where) });
      identity = entry.uriTemplate;
    } else {
      const args = raw.arguments === undefined ? [] : raw.arguments;
      if (!Array.isArray(args)) fail(where, '"arguments" must be an array');
      entry = optional({
        ...common,
        arguments: args.map((arg, argIndex) => {
          const argWhere = `${where} argument ${argIndex}`;
          const rawArg = record(arg, argWhere);
          if (rawArg.required !== undefined && typeof rawArg.required !== 'boolean') fail(argWhere, '"required" must be a boolean');
          return optional({ name: str(rawArg, 'name', argWhere, true), description: str(rawArg, 'description', argWhere), required: rawArg.required === true });
        }),
      });
      identity = entry.name;
    }
    if (seen.has(identity)) fail(where, `duplicate ${kind} ${JSON.stringify(identity)}`);
    seen.add(identity);
    return entry;
  });
  return deepFreeze(entries);
}

/** Checks prompt arguments against the prompt's catalog entry. */
export function checkPromptArguments(prompt: McpPromptEntry, args: Record<string, unknown>, server: string): Record<string, string> {
  const where = `prompt "${prompt.name}" on "${server}"`;
  const known = new Map(prompt.arguments.map((arg) => [arg.name, arg]));
  for (const [name, value] of Object.entries(args)) {
    if (!known.has(name)) {
      throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `${where} has no argument "${name}"`, {
        hint: `its arguments: ${[...known.keys()].join(', ') || 'none'}`,
      });
    }
    if (typeof value !== 'string') throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `${where}: argument "${name}" must be a string`);
  }
  const missing = prompt.arguments.filter((arg) => arg.required && args[arg.name] === undefined).map((arg) => arg.name);
  if (missing.length > 0) {
    throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `${where} needs argument(s) ${missing.join(', ')}`, { hint: 'pass them in the arguments object' });
  }
  return args as Record<string, string>;
}

/** Validates a `resources/read` result. */
export function resourceDocument(server: string, uri: string, result: Record<string, unknown>): McpDocument {
  const where = `MCP server "${server}" resource ${uri}`;
  if (!Array.isArray(result.contents)) fail(where, 'read result has no contents array');
  const blocks = result.contents.map((contents, index) => parseResourceContents(contents, `${where} contents[${index}]`));
  return deepFreeze({ kind: 'resource' as const, server, uri, blocks });
}

/** Validates a `prompts/get` result. */
export function promptDocument(server: string, name: string, result: Record<string, unknown>): McpDocument {
  const where = `MCP server "${server}" prompt "${name}"`;
  if (!Array.isArray(result.messages)) fail(where, 'get result has no messages array');
  const messages = result.messages.map((message, index) => {
    const raw = record(message, `${where} message ${index}`);
    if (raw.role !== 'user' && raw.role !== 'assistant') fail(where, `message ${index} has invalid role ${JSON.stringify(raw.role)}`);
    return { role: raw.role as 'user' | 'assistant', block: parseBlock(raw.content, `${where} message ${index}`) };
  });
  const description = result.description === undefined ? undefined : str(result, 'description', where);
  return deepFreeze({ kind: 'prompt' as const, server, name, ...(description !== undefined ? { description } : {}), messages });
}

/** Validates a `completion/complete` result. */
export function completionResult(server: string, result: Record<string, unknown>): McpCompletion {
  const where = `MCP server "${server}" completion`;
  const completion = record(result.completion, where);
  const values = completion.values;
  if (!Array.isArray(values) || values.some((value) => typeof value !== 'string')) fail(where, '"values" must be an array of strings');
  if (values.length > LIMITS.mcpCompletionValues) {
    throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `${where} has ${values.length} values, over the limit of ${LIMITS.mcpCompletionValues}`);
  }
  if (completion.total !== undefined && !(Number.isInteger(completion.total) && (completion.total as number) >= 0)) fail(where, '"total" must be a non-negative integer');
  if (completion.hasMore !== undefined && typeof completion.hasMore !== 'boolean') fail(where, '"hasMore" must be a boolean');
  return deepFreeze({
    values: values as string[],
    ...(completion.total !== undefined ? { total: completion.total as number } : {}),
    hasMore: completion.hasMore === true,
  });
}

/** The text of a document, for quoting as untrusted data. Refuses binary blocks rather than dropping them. */
export function draftText(document: McpDocument): string {
  const blocks = document.kind === 'resource' ? document.blocks : document.messages.map((message) => message.block);
  const binary = blocks.find((block) => block.isBinary);
  if (binary) {
    throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `the ${document.kind} contains a binary ${binary.contentType} block (${binary.mimeType ?? 'no MIME type'}, ${binary.bytes} bytes) that has no text form`, {
      hint: 'export the block data instead of drafting it as text',
    });
  }
  if (document.kind === 'resource') return document.blocks.map((block) => block.text ?? `[link ${block.uri}]`).join('\n');
  return document.messages
    .map((message) => `[${message.role}] ${message.block.text ?? `[link ${message.block.uri}]`}`)
    .join('\n');
}
