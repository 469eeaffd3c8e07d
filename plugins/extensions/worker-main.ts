/**
 * The extension worker: a Node process the host owns. It talks to the host
 * only over fd 3 (the private channel), imports the extension named in the
 * host's `setup` request, runs `setup(api)` and then answers the host's
 * callback requests. Author-facing checks (limits, duplicate names) throw in
 * the author's code, at once; the host checks everything again.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import net from 'node:net';
import { pathToFileURL } from 'node:url';
import { LIMITS } from '../../core/limits.js';
import type { ArgumentContext, CommandContent, CommandResult, CommandSpec, Disposer, ExtensionAPI, Json, ProviderSpec, ToolSpec } from './api.js';
import { Channel } from './channel.js';
import { shortcutProblem } from './shortcuts.js';
import { EXTENSION_EVENTS, ModelSpecSchema, PUBLIC_NAME_PATTERN, RICH_RESULT_KIND, type RegistrationKind } from './protocol.js';
import { TransferInbox, packPayload } from './transfer.js';

const socket = new net.Socket({ fd: 3, readable: true, writable: true });
// The host is gone: nothing is left to serve.
socket.on('close', () => process.exit(0));
const channel = new Channel(socket, socket, () => process.exit(1));
const peer = channel.peer;
/** Chunked inputs the host sends ahead (contexts, compaction preparations over one block). */
const inbox = new TransferInbox(peer);

/** The host's id of the command call running (reads made inside it carry it; the host gives session catalogs only to those). */
const commandCall = new AsyncLocalStorage<string>();

/** Callbacks by handle. */
const callbacks = new Map<number, (input: any) => unknown>();
const completers = new Map<number, (prefix: string, context: ArgumentContext | undefined) => unknown>();
/** Public command names in use, lower-cased, to their command's name. */
const publicNames = new Map<string, { handle: number; command: string }>();
const providers = new Map<number, ProviderSpec>();
/** Live registrations by kind and lower-cased name, for the author-side limits and duplicate checks. */
const named = new Map<string, { handle: number; dispose: Disposer }>();
const counts = new Map<RegistrationKind, number>();
let nextHandle = 1;
/** Status keys set and not cleared (the host holds at most LIMITS.extensionStatusKeys). */
const statusKeys = new Set<string>();

function fail(message: string): never {
  throw new Error(`xdog extension API: ${message}`);
}

function register(kind: RegistrationKind, name: string | undefined, meta: Record<string, unknown>, callback: (input: any) => unknown, options: { limit?: number; replace?: boolean } = {}): Disposer {
  const key = name === undefined ? undefined : `${kind}:${name.toLowerCase()}`;
  const existing = key === undefined ? undefined : named.get(key);
  if (existing) {
    if (!options.replace) fail(`a ${kind} named "${name}" is already registered (names compare case-insensitively); pass replace: true to replace it`);
    existing.dispose();
  }
  const count = counts.get(kind) ?? 0;
  if (options.limit !== undefined && count >= options.limit) fail(`at most ${options.limit} ${kind} registrations per extension`);
  const handle = nextHandle++;
  callbacks.set(handle, callback);
  counts.set(kind, count + 1);
  peer.notify('register', { handle, kind, name, meta } as never, undefined);
  let disposed = false;
  const dispose = (): void => {
    if (disposed) return;
    disposed = true;
    callbacks.delete(handle);
    completers.delete(handle);
    providers.delete(handle);
    counts.set(kind, (counts.get(kind) ?? 1) - 1);
    if (key !== undefined && named.get(key)?.handle === handle) named.delete(key);
    peer.notify('unregister', { handle } as never, undefined);
  };
  if (key !== undefined) named.set(key, { handle, dispose });
  return dispose;
}

function dialogTimeout(seconds: number | undefined): number {
  const value = seconds ?? 60;
  if (!(value >= LIMITS.extensionDialogMinSeconds && value <= LIMITS.extensionDialogMaxSeconds)) {
    fail(`a dialog timeout is ${LIMITS.extensionDialogMinSeconds}-${LIMITS.extensionDialogMaxSeconds} seconds, not ${value}`);
  }
  return value;
}

function makeApi(id: string, settings: Json | undefined): ExtensionAPI {
  const ask = (params: Record<string, unknown>) => peer.request('dialog', params as never, undefined) as Promise<{ answer: unknown }>;
  const catalog = (what: 'sessions' | 'tree', request: object) => {
    const query = (request as { query?: unknown }).query;
    if (typeof query === 'string' && Buffer.byteLength(query) > LIMITS.extensionSessionQueryBytes) fail(`a session query is at most ${LIMITS.extensionSessionQueryBytes} bytes`);
    return peer.request('catalog', { what, invocation: commandCall.getStore() ?? null, request } as never, undefined) as Promise<any>;
  };
  const inspect = (what: string) => peer.request('inspect', { what } as never, undefined) as Promise<any>;
  const api: ExtensionAPI = {
    id,
    settings,
    command(name: string, spec: CommandSpec): Disposer {
      if (!/^[a-z0-9][a-z0-9_-]{0,31}$/i.test(name)) fail(`command name ${JSON.stringify(name)}: use 1-32 letters, digits, "-" or "_"`);
      if (typeof spec?.run !== 'function') fail(`command "${name}" needs a run(args) function`);
      const problem = spec.shortcut === undefined ? undefined : shortcutProblem(spec.shortcut);
      if (problem) fail(`command "${name}": ${problem}`);
      const publicName = spec.publicName;
      if (publicName !== undefined) {
        if (typeof publicName !== 'string' || !PUBLIC_NAME_PATTERN.test(publicName)) fail(`command "${name}": publicName ${JSON.stringify(publicName)}: use 1-${LIMITS.extensionPublicNameChars} lower-case letters, digits or "-", starting with a letter and not with "ext-"`);
        const taken = publicNames.get(publicName);
        // A replacement of the same command may keep its public name; another command may not take it.
        if (taken && !(spec.replace && taken.command.toLowerCase() === name.toLowerCase())) fail(`command "${name}": the public name /${publicName} is already command "${taken.command}"'s; public names are not shadowed`);
      }
      const meta = { description: spec.description ?? '', completes: typeof spec.complete === 'function', ...(spec.shortcut !== undefined && { shortcut: spec.shortcut }), ...(publicName !== undefined && { publicName }) };
      const disposeRegistration = register('command', name, meta, (args: string) => spec.run(args), {
        limit: LIMITS.extensionCommands,
        replace: spec.replace,
      });
      const handle = nextHandle - 1;
      if (spec.complete) completers.set(handle, spec.complete);
      if (publicName !== undefined) publicNames.set(publicName, { handle, command: name });
      return () => {
        if (publicName !== undefined && publicNames.get(publicName)?.handle === handle) publicNames.delete(publicName);
        disposeRegistration();
      };
    },
    result: (content: CommandContent): CommandResult => richResult(content),
    on(event, callback) {
      if (!(EXTENSION_EVENTS as readonly string[]).includes(event)) fail(`no lifecycle event ${JSON.stringify(event)}: use one of ${EXTENSION_EVENTS.join(', ')}`);
      if (typeof callback !== 'function') fail(`on('${event}') needs a callback function`);
      return register('event', undefined, { event }, callback as (input: unknown) => unknown);
    },
    beforeToolCall: (callback) => register('beforeToolCall', undefined, {}, callback),
    afterToolCall: (callback) => register('afterToolCall', undefined, {}, callback),
    context: (callback) => register('context', undefined, {}, callback),
    onInput: (callback) => register('input', undefined, {}, callback),
    tool(spec: ToolSpec): Disposer {
      if (!/^[a-z0-9_]{1,48}$/i.test(spec?.name ?? '')) fail('a tool name is 1-48 letters, digits or "_"');
      if (typeof spec.execute !== 'function') fail(`tool "${spec.name}" needs an execute(args) function`);
      return register('tool', spec.name, { description: spec.description ?? '', parameters: spec.parameters ?? { type: 'object' } }, (args) => spec.execute(args), { limit: LIMITS.extensionTools });
    },
    appendEntry: (kind, data) => peer.request('appendEntry', { kind, data } as never, undefined) as Promise<{ id: string }>,
    select: async (title, options, dialog) => (await ask({ kind: 'select', title, options, timeoutSeconds: dialogTimeout(dialog?.timeoutSeconds) })).answer as string | undefined,
    input: async (title, dialog) => (await ask({ kind: 'input', title, placeholder: dialog?.placeholder, timeoutSeconds: dialogTimeout(dialog?.timeoutSeconds) })).answer as string | undefined,
    confirm: async (title, dialog) => (await ask({ kind: 'confirm', title, timeoutSeconds: dialogTimeout(dialog?.timeoutSeconds) })).answer === true,
    status(key: string, text: string | undefined): void {
      if (typeof key !== 'string' || key.length < 1 || key.length > 64) fail('a status key is 1-64 characters');
      if (text !== undefined && (typeof text !== 'string' || Buffer.byteLength(text) > LIMITS.extensionStatusBytes)) fail(`status text is a string of at most ${LIMITS.extensionStatusBytes} bytes`);
      if (text === undefined) statusKeys.delete(key);
      else if (!statusKeys.has(key) && statusKeys.size >= LIMITS.extensionStatusKeys) fail(`at most ${LIMITS.extensionStatusKeys} status keys at once; clear one with status(key, undefined) first`);
      else statusKeys.add(key);
      peer.notify('status', { key, text: text ?? null } as never, undefined);
    },
    registerProvider(name: string, spec: ProviderSpec): Disposer {
      if (!/^[a-z0-9][a-z0-9_-]{0,31}$/.test(name)) fail(`provider name ${JSON.stringify(name)}: use 1-32 lower-case letters, digits, "-" or "_"`);
      if (!Array.isArray(spec?.models) || spec.models.length === 0 || spec.models.length > LIMITS.extensionProviderModels) {
        fail(`provider "${name}" needs 1-${LIMITS.extensionProviderModels} models`);
      }
      if (typeof spec.stream !== 'function') fail(`provider "${name}" needs a stream(request) function`);
      for (const model of spec.models) {
        const checked = ModelSpecSchema.safeParse(model);
        if (!checked.success) fail(`provider "${name}", model ${JSON.stringify((model as { id?: unknown })?.id)}: ${checked.error.issues.map((issue) => `${issue.path.join('.') || 'model'}: ${issue.message}`).join('; ')}`);
      }
      const dispose = register('provider', name, { models: spec.models }, () => undefined, { limit: LIMITS.extensionProviders, replace: spec.replace });
      providers.set(nextHandle - 1, spec);
      return dispose;
    },
    getModel: () => inspect('model'),
    getContextUsage: () => inspect('contextUsage'),
    getActiveTools: () => inspect('activeTools'),
    getSessionName: () => inspect('sessionName'),
    getToolInventory: () => inspect('toolInventory'),
    getCommandCatalog: () => inspect('commandCatalog'),
    hasPendingMessages: () => inspect('pendingMessages'),
    getEntries: () => inspect('entries'),
    listSessions: (request = {}) => catalog('sessions', request),
    getSessionTree: (sessionId, options = {}) => catalog('tree', { ...options, ...(sessionId !== undefined && { sessionId }) }),
  };
  return Object.freeze(api);
}

/** Checks rich content in the author's code (the host checks it all again, image bytes too) and tags it. */
function richResult(content: CommandContent): CommandResult {
  if (typeof content !== 'object' || content === null) fail('api.result takes an object: {text?, image?, structured?, details?}');
  const unknown = Object.keys(content).filter((key) => !['text', 'image', 'structured', 'details'].includes(key));
  if (unknown.length) fail(`api.result: unknown part ${unknown.map((key) => JSON.stringify(key)).join(', ')} (use text, image, structured, details)`);
  const parts = Object.keys(content).filter((key) => (content as Record<string, unknown>)[key] !== undefined);
  if (parts.length === 0) fail('api.result needs at least one of text, image, structured or details');
  if (content.text !== undefined && (typeof content.text !== 'string' || Buffer.byteLength(content.text) > LIMITS.extensionCommandTextBytes)) fail(`api.result: text is a string of at most ${LIMITS.extensionCommandTextBytes} bytes`);
  if (content.image !== undefined) {
    const { data, mimeType } = content.image ?? ({} as never);
    if (typeof data !== 'string' || typeof mimeType !== 'string' || !/^image\/(png|jpeg|webp)$/.test(mimeType)) fail('api.result: image is {data: base64, mimeType: "image/png" | "image/jpeg" | "image/webp"}');
    if (data.length > Math.ceil(LIMITS.extensionCommandImageBytes / 3) * 4) fail(`api.result: the image is over ${LIMITS.extensionCommandImageBytes} bytes`);
  }
  for (const part of ['structured', 'details'] as const) {
    if (content[part] === undefined) continue;
    let text: string | undefined;
    try {
      text = JSON.stringify(content[part]);
    } catch (error) {
      fail(`api.result: ${part} is not JSON (${(error as Error).message})`);
    }
    if (text === undefined || Buffer.byteLength(text) > LIMITS.extensionCommandStructuredBytes) fail(`api.result: ${part} is JSON of at most ${LIMITS.extensionCommandStructuredBytes} bytes`);
  }
  // Parts left undefined are omitted; false, 0 and null are kept as they are.
  const tagged = { kind: RICH_RESULT_KIND, ...Object.fromEntries(parts.map((key) => [key, (content as Record<string, unknown>)[key]])) };
  return Object.freeze(JSON.parse(JSON.stringify(tagged))) as CommandResult;
}

function callbackOf(handle: number): (input: any) => unknown {
  const callback = callbacks.get(handle);
  if (!callback) throw new Error(`no live registration ${handle}`);
  return callback;
}

peer.addMethod('setup', async (params: any) => {
  const module = (await import(pathToFileURL(params.entry).href)) as { default?: unknown; setup?: unknown };
  const setup = typeof module.default === 'function' ? module.default : module.setup;
  if (typeof setup !== 'function') throw new Error(`${params.entry} exports no setup(api) function (default export or named "setup")`);
  await setup(makeApi(params.id, params.settings));
  return {};
});

peer.addMethod('invoke', async (params: any) => {
  const input = inbox.unpack(params.input);
  const callback = callbackOf(params.handle);
  const output = (await (typeof params.invocation === 'string' ? commandCall.run(params.invocation, () => callback(input)) : callback(input))) ?? null;
  return { output: await packPayload(peer, output, 'the answer') };
});

peer.addMethod('complete', async (params: any) => {
  const complete = completers.get(params.handle);
  // The callback gets its own copy: what it does to it changes nothing the host replaces.
  const context = params.context ? { ...params.context } : undefined;
  return { items: complete ? ((await complete(params.prefix, context)) ?? []) : [] };
});

peer.addMethod('stream', async (params: any) => {
  const spec = providers.get(params.handle);
  if (!spec) throw new Error(`no live provider ${params.handle}`);
  for await (const event of spec.stream(params.request) as AsyncIterable<unknown>) {
    peer.notify('streamEvent', { streamId: params.streamId, event } as never, undefined);
  }
  return {};
});
