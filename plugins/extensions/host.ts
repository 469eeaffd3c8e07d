/**
 * The extension host of one kernel: which extensions are enabled, their
 * workers, what each registered, and quarantine. Every call into a worker has
 * a deadline; a callback that throws, times out or answers out of contract
 * quarantines its extension: the worker's process group is killed and reaped,
 * its registrations are withdrawn, and (when it owned a pre-tool hook, or never
 * finished setup) tool calls fail closed until it is reloaded or unloaded.
 */
import { JSONRPCErrorException } from 'json-rpc-2.0';
import type { z } from 'zod';
import type { DiscoveredExtension } from '../../core/discovery.js';
import { ErrorCodes, XdogError, describeError } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';
import { inSpanStream, type Telemetry } from '../../core/telemetry.js';
import type { Json } from './api.js';
import { AGENT_INSPECTIONS, AppendEntrySchema, ArgumentContextSchema, CatalogSchema, CompleteAnswerSchema, contentOf, DialogSchema, InspectSchema, RegisterSchema, StatusSchema, StreamEventSchema, UnregisterSchema, type Registration } from './protocol.js';
import { SANDBOX_OFF, type Launch, type SandboxPolicy } from '../sandbox/index.js';
import { ExtensionWorker, workerLaunch } from './worker.js';
import { TransferInbox, packPayload } from './transfer.js';
import type { ExtensionSessionCatalog } from './session-catalog.js';
import { CheckedCommandAnswerSchema, commandResult, type CommandContent, type ExtensionCommandResult } from './command-result.js';
import type { ArgumentContext } from './protocol.js';
import { randomUUID } from 'node:crypto';

/** The registrations whose kind can be K. */
export type RegistrationOf<K extends Registration['kind']> = Registration extends infer R ? (R extends { kind: infer RK } ? (K extends RK ? R : never) : never) : never;

export type ExtensionState = 'inactive' | 'active' | 'quarantined' | 'unloaded' | 'missing';

/** What `list()` reports about one enabled extension. */
export interface ExtensionInfo {
  id: string;
  state: ExtensionState;
  version?: string;
  /** Why it is quarantined or missing. */
  reason?: string;
  /** True while its tool calls fail closed. */
  failClosed: boolean;
  commands: string[];
  tools: string[];
  providers: string[];
  status: Record<string, string>;
  /** Its commands' shortcuts: key (such as "alt+k") to the command as typed, without the slash. */
  shortcuts: Record<string, string>;
  /** Its commands' public names in effect: the name (typed `/NAME`) to the command's alias. */
  publicNames: Record<string, string>;
  /** Public names it asked for and did not get, each with the reason (naming who has it). */
  refusedNames: string[];
}

/** Names no extension may take as a public name: the extension front-end commands themselves. */
export const RESERVED_PUBLIC_NAMES: readonly string[] = ['extensions', 'artifact'];

/** A dialog answer: `undefined` for select/input cancelled, false for confirm. */
export interface ExtensionUi {
  dialog(request: z.infer<typeof DialogSchema>, extensionId: string): Promise<string | boolean | undefined>;
}

/** Stores durable entries for the current session (the gateway binds one); none means "unavailable". */
export interface ExtensionEntrySink {
  append(extensionId: string, kind: string, data: Json): Promise<{ id: string }>;
  /** This extension's own entries on the current session's path, oldest first. */
  list(extensionId: string): Promise<Array<{ id: string; kind: string; data: Json }>>;
}

/** Read-only inspection of the current agent; each answers 'unavailable' when it has no data. */
export interface ExtensionInspector {
  /** True once its agent closed (another agent's inspector may take its place). */
  readonly closed: boolean;
  inspect(what: (typeof AGENT_INSPECTIONS)[number]): Promise<unknown>;
}

export interface ExtensionHostOptions {
  ids: readonly string[];
  settings: Record<string, unknown>;
  cwd: string;
  locate(id: string): DiscoveredExtension | undefined;
  callbackTimeoutMs?: number;
  setupTimeoutMs?: number;
  /** Told about every quarantine (the CLI prints it on stderr). */
  onNotice?(message: string): void;
  /** The OS sandbox of one extension's worker (docs/sandbox.md); default off. */
  sandboxOf?(id: string): SandboxPolicy;
  /** The telemetry callbacks are traced with (an `extension` span each), when there is one. */
  telemetry?(): Telemetry | undefined;
  /** More names (lower case) no public command name may take, besides RESERVED_PUBLIC_NAMES, with what has them. */
  reservedCommands?: Readonly<Record<string, string>>;
}

interface Pending {
  events: unknown[];
  bytes: number;
  wake?: () => void;
}

interface ExtensionRecord {
  id: string;
  found?: DiscoveredExtension;
  state: ExtensionState;
  reason?: string;
  worker?: ExtensionWorker;
  /** True once setup(api) returned. */
  setupDone: boolean;
  failClosed: boolean;
  registrations: Map<number, Registration>;
  status: Map<string, string>;
  activating?: Promise<void>;
  /** The worker being killed, so reload/close can wait for its reaping. */
  stopping?: Promise<void>;
  streams: Map<number, Pending>;
  /** Chunked answers the worker sends ahead (contexts over one block). */
  inbox?: TransferInbox;
  /** The command calls running now: only a read made inside one of them may read session catalogs. */
  commandCalls: Set<string>;
}

let nextStreamId = 1;

export class ExtensionHost {
  readonly #options: ExtensionHostOptions;
  readonly #records = new Map<string, ExtensionRecord>();
  /** Public-name refusals already told (each once per host). */
  readonly #refusalsSaid = new Set<string>();
  ui?: ExtensionUi;
  entries?: ExtensionEntrySink;
  inspector?: ExtensionInspector;
  /** The session catalogs interactive commands may read (the gateway binds its group's); none means "unavailable". */
  sessions?: ExtensionSessionCatalog;
  /** Also told about every notice (a quarantine, a missing extension): the gateway relays them to the group's clients. */
  relayNotice?: (message: string) => void;
  /** Told an extension's status lines whenever they change (the gateway relays them to the group's clients). */
  relayStatus?: (extensionId: string, status: Record<string, string>) => void;

  #statusChanged(record: ExtensionRecord): void {
    this.relayStatus?.(record.id, Object.fromEntries(record.status));
  }

  #notice(message: string): void {
    this.#options.onNotice?.(message);
    this.relayNotice?.(message);
  }

  constructor(options: ExtensionHostOptions) {
    this.#options = options;
    for (const id of options.ids) this.#records.set(id, this.#fresh(id));
  }

  get callbackTimeoutMs(): number {
    return this.#options.callbackTimeoutMs ?? LIMITS.extensionCallbackTimeoutMs;
  }

  #fresh(id: string): ExtensionRecord {
    return { id, state: 'inactive', setupDone: false, failClosed: false, registrations: new Map(), status: new Map(), streams: new Map(), commandCalls: new Set() };
  }

  #record(id: string): ExtensionRecord {
    const record = this.#records.get(id);
    if (!record) {
      throw new XdogError(ErrorCodes.NOT_FOUND, `no enabled extension "${id}"`, { hint: `enabled: ${[...this.#records.keys()].join(', ') || 'none'} (the extensions: list in the config)` });
    }
    return record;
  }

  list(): ExtensionInfo[] {
    const publicNames = this.#publicNames();
    return [...this.#records.values()].map((record) => {
      const names = (kind: Registration['kind']) => [...record.registrations.values()].filter((r) => r.kind === kind).map((r) => ('name' in r ? r.name : ''));
      return {
        id: record.id,
        state: record.state,
        ...(record.found && { version: record.found.version }),
        ...(record.reason !== undefined && { reason: record.reason }),
        failClosed: record.failClosed,
        commands: names('command').map((name) => commandAlias(record.id, name)),
        tools: names('tool').map((name) => toolAlias(name)),
        providers: names('provider').map((name) => providerAlias(record.id, name)),
        status: Object.fromEntries(record.status),
        shortcuts: Object.fromEntries([...record.registrations.values()].flatMap((r) => (r.kind === 'command' && r.meta.shortcut ? [[r.meta.shortcut, commandAlias(record.id, r.name)]] : []))),
        publicNames: Object.fromEntries([...publicNames.granted].filter(([, owner]) => owner.id === record.id).map(([name, owner]) => [name, commandAlias(owner.id, owner.registration.name)])),
        refusedNames: publicNames.refused.filter((refusal) => refusal.id === record.id).map((refusal) => refusal.reason),
      };
    });
  }

  /**
   * Who has each public name: the first claim in enabling order (then
   * registration order) gets it; a reserved name, or one already granted,
   * is refused with a reason naming both, never shadowed.
   */
  #publicNames(): { granted: Map<string, { id: string; registration: RegistrationOf<'command'> }>; refused: Array<{ id: string; handle: number; reason: string }> } {
    const granted = new Map<string, { id: string; registration: RegistrationOf<'command'> }>();
    const refused: Array<{ id: string; handle: number; reason: string }> = [];
    const reserved: Record<string, string> = { ...this.#options.reservedCommands, ...Object.fromEntries(RESERVED_PUBLIC_NAMES.map((name) => [name, `the builtin /${name}`])) };
    for (const { id, registration } of this.registrations('command')) {
      const name = registration.meta.publicName;
      if (name === undefined) continue;
      const alias = commandAlias(id, registration.name);
      const holder = granted.get(name);
      if (reserved[name]) refused.push({ id, handle: registration.handle, reason: `/${name} of ${alias} is refused: /${name} is ${reserved[name]}` });
      else if (holder) refused.push({ id, handle: registration.handle, reason: `/${name} of ${alias} is refused: /${name} is already ${commandAlias(holder.id, holder.registration.name)} (extension "${holder.id}")` });
      else granted.set(name, { id, registration });
    }
    return { granted, refused };
  }

  /** The command typed as `/ext-ID-NAME` or by its public name `/NAME`. */
  #command(typed: string): { id: string; registration: RegistrationOf<'command'> } | undefined {
    const word = typed.replace(/^\//, '');
    return this.registrations('command').find(({ id, registration }) => commandAlias(id, registration.name) === word) ?? this.#publicNames().granted.get(word);
  }

  /** Activates every enabled extension not yet active (lazy: the first turn, `/extensions`, an extension command). */
  async activateAll(): Promise<void> {
    await Promise.all([...this.#records.values()].filter((record) => record.state === 'inactive').map((record) => this.#activate(record)));
  }

  async activate(id: string): Promise<void> {
    const record = this.#record(id);
    if (record.state === 'inactive') await this.#activate(record);
  }

  /**
   * Activates the extensions that serve these models (`ext-ID-PROVIDER/MODEL`;
   * others are ignored), so they resolve; fails with the extension's state
   * and reason when one of them could not start.
   */
  async activateForModels(models: ReadonlyArray<string | undefined>, what: string): Promise<void> {
    for (const model of models) {
      if (!model?.startsWith('ext-')) continue;
      const provider = model.split('/')[0]!;
      const owners = [...this.#records.values()].filter((record) => provider.startsWith(`ext-${extensionSlug(record.id)}-`));
      if (owners.length === 0) {
        throw new XdogError(ErrorCodes.CONFIG_INVALID, `${what} uses the model ${model}, but no enabled extension serves ${provider}`, { hint: 'enable the extension under extensions: in the config' });
      }
      for (const record of owners) if (record.state === 'inactive') await this.#activate(record);
      if (!owners.some((record) => record.state === 'active')) {
        throw new XdogError(ErrorCodes.UNAVAILABLE, `${what} uses the model ${model}, but ${unavailable(owners[0]!).message}`, { hint: 'fix the extension, then restart the gateway' });
      }
    }
  }

  /** Stops the extension (if running) and starts it afresh. */
  async reload(id: string): Promise<ExtensionInfo> {
    const record = this.#record(id);
    await this.#stop(record);
    const fresh = this.#fresh(id);
    this.#records.set(id, fresh);
    await this.#activate(fresh);
    return this.list().find((info) => info.id === id)!;
  }

  /** Stops the extension and withdraws what it registered; it stays unloaded until `reload`. */
  async unload(id: string): Promise<ExtensionInfo> {
    const record = this.#record(id);
    await this.#stop(record);
    record.state = 'unloaded';
    record.failClosed = false;
    record.reason = undefined;
    return this.list().find((info) => info.id === id)!;
  }

  async close(): Promise<void> {
    await Promise.all([...this.#records.values()].map((record) => this.#stop(record)));
  }

  /** Active registrations of one kind, in enabling order, with their extension. */
  registrations<K extends Registration['kind']>(kind: K): Array<{ id: string; registration: RegistrationOf<K> }> {
    const found: Array<{ id: string; registration: RegistrationOf<K> }> = [];
    for (const record of this.#records.values()) {
      if (record.state !== 'active') continue;
      for (const registration of record.registrations.values()) {
        if (registration.kind === kind) found.push({ id: record.id, registration: registration as RegistrationOf<K> });
      }
    }
    return found;
  }

  /** The commands active extensions offer, as the user types them. */
  commandCatalog(): Array<{ command: string; extension: string; description: string; completes: boolean; publicName?: string }> {
    const granted = new Map([...this.#publicNames().granted].map(([name, owner]) => [owner.registration, name]));
    return this.registrations('command').map(({ id, registration }) => ({
      command: `/${commandAlias(id, registration.name)}`,
      extension: id,
      description: registration.meta.description,
      completes: registration.meta.completes,
      ...(granted.has(registration) && { publicName: granted.get(registration) }),
    }));
  }

  /** Runs `/ext-ID-NAME ARGS` or `/PUBLIC ARGS` (activating extensions first): the text it shows (a rich result's summary). */
  async runCommand(alias: string, args: string): Promise<string> {
    const answer = await this.runCommandResult(alias, args);
    return typeof answer === 'string' ? answer : answer.summary;
  }

  /** Like runCommand, with a rich result whole (validated, with the command's identity) instead of its summary. */
  async runCommandResult(alias: string, args: string): Promise<string | ExtensionCommandResult> {
    await this.activateAll();
    const found = this.#command(alias);
    if (!found) {
      const known = this.commandCatalog().map((entry) => entry.command + (entry.publicName ? ` (/${entry.publicName})` : ''));
      throw new XdogError(ErrorCodes.NOT_FOUND, `no extension command ${alias}`, { hint: `extension commands: ${known.join(', ') || 'none'}` });
    }
    // The call's own id goes with it: reads the worker makes while it runs name it, and only those get session catalogs.
    const record = this.#record(found.id);
    const call = randomUUID();
    record.commandCalls.add(call);
    try {
      const answer = await this.invoke(found.id, 'invoke', { handle: found.registration.handle, input: args, invocation: call }, CheckedCommandAnswerSchema, `command ${alias}`);
      if (answer === null || typeof answer === 'string') return answer ?? '';
      const publicName = this.#publicNames().granted.get(found.registration.meta.publicName ?? '')?.registration === found.registration ? found.registration.meta.publicName : undefined;
      return commandResult(found.id, found.registration.name, publicName, contentOf(answer) as CommandContent);
    } finally {
      record.commandCalls.delete(call);
    }
  }

  /**
   * Completions of the token at the cursor of an extension command's argument.
   * `context` (from a caller with the whole draft) must agree with `prefix`;
   * prefix-only callers give none, and the callback gets undefined.
   */
  async completeCommand(alias: string, prefix: string, context?: ArgumentContext): Promise<string[]> {
    if (context !== undefined) checkArgumentContext(prefix, context);
    await this.activateAll();
    const found = this.#command(alias);
    if (!found?.registration.meta.completes) return [];
    return (await this.invoke(found.id, 'complete', { handle: found.registration.handle, prefix, context: context ?? null }, CompleteAnswerSchema, `completion of ${alias}`)).items;
  }

  /** Why tool calls must fail closed now, or undefined. */
  failClosedReason(): string | undefined {
    for (const record of this.#records.values()) {
      if (record.failClosed) return `extension "${record.id}" is quarantined (${record.reason}); tool calls fail closed until \`xdog claw extensions reload ${record.id}\` or unload`;
    }
    return undefined;
  }

  /**
   * Calls one registration's callback with the deadline. Resolves with the
   * answer parsed by `schema`; on a throw, timeout or out-of-contract answer
   * the extension is quarantined and this rejects with UNAVAILABLE.
   */
  async invoke<T>(id: string, method: 'invoke' | 'complete', params: Record<string, unknown>, schema: z.ZodType<T>, what: string): Promise<T> {
    const telemetry = this.#options.telemetry?.();
    if (!telemetry) return this.#invoke(id, method, params, schema, what);
    // `what` names the callback ("beforeToolCall", "tool ext_x", ...): a span per call, under the tool call or turn that made it.
    return telemetry.inSpan(`extension ${id}`, { attributes: { 'xdog.extension': id, 'xdog.extension.callback': what } }, () => this.#invoke(id, method, params, schema, what));
  }

  async #invoke<T>(id: string, method: 'invoke' | 'complete', params: Record<string, unknown>, schema: z.ZodType<T>, what: string): Promise<T> {
    const record = this.#record(id);
    const worker = record.worker;
    if (record.state !== 'active' || !worker) throw unavailable(record);
    // A large input (a context with images) goes ahead in checksummed blocks; over the transfer limit it fails here, not in the worker.
    const input = await this.#transfer(record, () => packPayload(worker.channel.peer, params.input, `the input of its ${what}`), what);
    // A chunked input most likely has a chunked answer (a rewritten context): its transfer gets its own deadline on top.
    const timeoutMs = this.callbackTimeoutMs + (input === params.input ? 0 : LIMITS.extensionTransferTimeoutMs);
    const answer = await this.#request(record, worker, method, { ...params, input }, timeoutMs, what);
    let output = method === 'invoke' ? (answer as { output?: unknown } | null)?.output : answer;
    try {
      output = record.inbox?.unpack(output) ?? output;
    } catch (error) {
      await this.#quarantine(record, `its ${what} answer did not arrive whole: ${describeError(error)}`);
      throw unavailable(record);
    }
    const parsed = schema.safeParse(output);
    if (!parsed.success) {
      await this.#quarantine(record, `its ${what} answered out of contract: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || 'answer'}: ${issue.message}`).join('; ')}`);
      throw unavailable(record);
    }
    return parsed.data;
  }

  /**
   * Streams a provider registration's events, validated one by one and
   * bounded in number and bytes; the idle deadline between events is the
   * callback timeout. Any failure quarantines and ends with UNAVAILABLE.
   */
  /** Runs a chunked send; a payload over the limit is the caller's LIMIT_EXCEEDED, a broken channel or deadline quarantines. */
  async #transfer(record: ExtensionRecord, send: () => Promise<unknown>, what: string): Promise<unknown> {
    try {
      return await send();
    } catch (error) {
      if (XdogError.is(error, ErrorCodes.LIMIT_EXCEEDED)) throw error;
      await this.#quarantine(record, `the input of its ${what} could not be sent: ${describeError(error)}`);
      throw unavailable(record);
    }
  }

  stream(id: string, handle: number, request: Record<string, unknown>, signal?: AbortSignal): AsyncGenerator<unknown> {
    const telemetry = this.#options.telemetry?.();
    if (!telemetry) return this.#stream(id, handle, request, signal);
    // Like every other callback, a span of its own: under the chat span of the model call it serves.
    const registration = this.#records.get(id)?.registrations.get(handle);
    const name = registration?.kind === 'provider' ? registration.name : String(handle);
    return inSpanStream(telemetry, `extension ${id}`, { attributes: { 'xdog.extension': id, 'xdog.extension.callback': `provider ${name} stream` } }, this.#stream(id, handle, request, signal));
  }

  async *#stream(id: string, handle: number, request: Record<string, unknown>, signal?: AbortSignal): AsyncGenerator<unknown> {
    const record = this.#record(id);
    const worker = record.worker;
    if (record.state !== 'active' || !worker) throw unavailable(record);
    const streamId = nextStreamId++;
    const pending: Pending = { events: [], bytes: 0 };
    record.streams.set(streamId, pending);
    let finished = false;
    let failure: unknown;
    const call = worker.channel.peer.request('stream', { handle, streamId, request } as never, undefined);
    void Promise.resolve(call).then(
      () => (finished = true),
      (error: unknown) => (failure = error),
    ).finally(() => pending.wake?.());
    let count = 0;
    try {
      for (;;) {
        if (signal?.aborted) return;
        const event = pending.events.shift();
        if (event !== undefined) {
          if (++count > LIMITS.extensionStreamEvents) {
            await this.#quarantine(record, `its provider stream sent over ${LIMITS.extensionStreamEvents} events`);
            throw unavailable(record);
          }
          yield event;
          continue;
        }
        if (pending.bytes > LIMITS.extensionStreamBytes) {
          await this.#quarantine(record, `its provider stream sent over ${LIMITS.extensionStreamBytes} bytes`);
          throw unavailable(record);
        }
        if (failure !== undefined) {
          await this.#quarantine(record, `its provider stream failed: ${describeError(failure)}`);
          throw unavailable(record);
        }
        if (finished) return;
        const timedOut = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(true), this.callbackTimeoutMs);
          const onAbort = (): void => resolve(false);
          signal?.addEventListener('abort', onAbort, { once: true });
          pending.wake = () => {
            clearTimeout(timer);
            signal?.removeEventListener('abort', onAbort);
            resolve(false);
          };
        });
        pending.wake = undefined;
        if (timedOut) {
          await this.#quarantine(record, `its provider stream sent nothing for ${this.callbackTimeoutMs} ms`);
          throw unavailable(record);
        }
      }
    } finally {
      record.streams.delete(streamId);
    }
  }

  async #activate(record: ExtensionRecord): Promise<void> {
    if (record.activating) return record.activating;
    record.activating = this.#start(record).finally(() => (record.activating = undefined));
    return record.activating;
  }

  async #start(record: ExtensionRecord): Promise<void> {
    let found: DiscoveredExtension | undefined;
    try {
      found = this.#options.locate(record.id);
    } catch (error) {
      record.state = 'missing';
      record.reason = describeError(error);
      record.failClosed = true;
      return;
    }
    if (!found) {
      record.state = 'missing';
      record.reason = 'no installed package declares it (install it with `xdog plugins install`, or put its folder in extension_dir)';
      record.failClosed = true;
      this.#notice(`extension "${record.id}" is enabled but not installed: tool calls fail closed`);
      return;
    }
    record.found = found;
    let launch: Launch;
    try {
      launch = await workerLaunch(this.#options.cwd, this.#options.sandboxOf?.(record.id) ?? SANDBOX_OFF, record.id, found.dir);
    } catch (error) {
      // Fail closed: an unenforceable sandbox never becomes an unsandboxed worker.
      record.state = 'quarantined';
      record.reason = describeError(error);
      record.failClosed = true;
      this.#notice(`extension "${record.id}" did not start: ${record.reason}`);
      return;
    }
    const worker = new ExtensionWorker(this.#options.cwd, (reason) => void this.#quarantine(record, reason), launch);
    record.worker = worker;
    record.state = 'active';
    this.#serve(record, worker);
    await this.#request(record, worker, 'setup', { id: record.id, entry: found.entry, settings: this.#options.settings[record.id] ?? null }, this.#options.setupTimeoutMs ?? LIMITS.extensionSetupTimeoutMs, 'setup(api)').then(
      () => {
        if (record.worker === worker && record.state === 'active') record.setupDone = true;
      },
      () => undefined, // already quarantined
    );
  }

  /** The methods and notifications a worker may call. */
  #serve(record: ExtensionRecord, worker: ExtensionWorker): void {
    const peer = worker.channel.peer;
    record.inbox = new TransferInbox(peer);
    const contract = <S extends z.ZodType>(schema: S, params: unknown, what: string): z.infer<S> | undefined => {
      const parsed = schema.safeParse(params);
      if (parsed.success) return parsed.data;
      void this.#quarantine(record, `its ${what} was out of contract: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`);
      return undefined;
    };
    peer.addMethod('register', (params) => {
      const registration = contract(RegisterSchema, params, 'registration');
      if (registration) this.#register(record, registration);
    });
    peer.addMethod('unregister', (params) => {
      const parsed = contract(UnregisterSchema, params, 'unregistration');
      if (parsed) record.registrations.delete(parsed.handle);
    });
    peer.addMethod('status', (params) => {
      const parsed = contract(StatusSchema, params, 'status');
      if (!parsed) return;
      if (parsed.text === null) record.status.delete(parsed.key);
      else if (record.status.has(parsed.key) || record.status.size < LIMITS.extensionStatusKeys) record.status.set(parsed.key, parsed.text);
      // The API refuses a key over the limit in the author's code; a worker that sends one anyway is out of contract.
      else return void this.#quarantine(record, `it set more than ${LIMITS.extensionStatusKeys} status keys`);
      this.#statusChanged(record);
    });
    peer.addMethod('streamEvent', (params) => {
      const parsed = contract(StreamEventSchema, params, 'stream event');
      const pending = parsed && record.streams.get(parsed.streamId);
      if (!pending) return;
      pending.bytes += JSON.stringify(parsed.event ?? null).length;
      pending.events.push(parsed.event ?? null);
      pending.wake?.();
    });
    peer.addMethod('appendEntry', async (params) => {
      const parsed = AppendEntrySchema.safeParse(params);
      if (!parsed.success) throw refusal(`appendEntry: ${parsed.error.issues.map((issue) => issue.message).join('; ')}`);
      if (!this.entries) throw refusal('appendEntry is unavailable here: durable entries need a session store (run the agent in the claw gateway)');
      try {
        return await this.entries.append(record.id, parsed.data.kind, parsed.data.data as Json);
      } catch (error) {
        throw refusal(describeError(error));
      }
    });
    peer.addMethod('dialog', async (params) => {
      const parsed = DialogSchema.safeParse(params);
      if (!parsed.success) throw refusal(`dialog: ${parsed.error.issues.map((issue) => issue.message).join('; ')}`);
      const none = parsed.data.kind === 'confirm' ? false : null;
      if (!this.ui) return { answer: none };
      const answer = await withDeadline(this.ui.dialog(parsed.data, record.id), parsed.data.timeoutSeconds * 1000).catch(() => undefined);
      return { answer: answer ?? none };
    });
    peer.addMethod('catalog', async (params) => {
      const parsed = CatalogSchema.safeParse(params);
      if (!parsed.success) throw refusal(`session catalog: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || 'request'}: ${issue.message}`).join('; ')}`);
      // Hooks, completions and providers have no catalog authority, nor a read outliving its command call.
      const { what, invocation, request } = parsed.data;
      if (!this.sessions || invocation === null || !record.commandCalls.has(invocation)) return 'unavailable';
      try {
        return what === 'sessions' ? await this.sessions.list(request) : await this.sessions.tree(request);
      } catch (error) {
        throw refusal(describeError(error));
      }
    });
    peer.addMethod('inspect', async (params) => {
      const parsed = InspectSchema.safeParse(params);
      if (!parsed.success) throw refusal('inspect: unknown inspection');
      const what = parsed.data.what;
      try {
        if (what === 'commandCatalog') return this.commandCatalog();
        if (what === 'entries') return this.entries ? await this.entries.list(record.id) : 'unavailable';
        return (await this.inspector?.inspect(what)) ?? 'unavailable';
      } catch {
        return 'unavailable';
      }
    });
  }

  #register(record: ExtensionRecord, registration: Registration): void {
    const same = [...record.registrations.values()].filter((other) => other.kind === registration.kind);
    const limit = { command: LIMITS.extensionCommands, tool: LIMITS.extensionTools, provider: LIMITS.extensionProviders }[registration.kind as string];
    if (limit !== undefined && same.length >= limit) {
      void this.#quarantine(record, `it registered more than ${limit} ${registration.kind}s`);
      return;
    }
    if ('name' in registration && same.some((other) => 'name' in other && other.name.toLowerCase() === registration.name.toLowerCase())) {
      void this.#quarantine(record, `it registered the ${registration.kind} "${registration.name}" twice`);
      return;
    }
    if (registration.kind === 'beforeToolCall') record.failClosed = false;
    record.registrations.set(registration.handle, registration);
    if (registration.kind === 'command' && registration.meta.publicName !== undefined) {
      // A refused public name is said once, naming both sides (whichever registered first); the command still runs by its alias.
      for (const refusal of this.#publicNames().refused) {
        const key = `${refusal.id}\0${refusal.reason}`;
        if (this.#refusalsSaid.has(key)) continue;
        this.#refusalsSaid.add(key);
        this.#notice(`extension "${refusal.id}": ${refusal.reason}`);
      }
    }
  }

  async #request(record: ExtensionRecord, worker: ExtensionWorker, method: string, params: Record<string, unknown>, timeoutMs: number, what: string): Promise<unknown> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DeadlineError(`its ${what} did not answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      return await Promise.race([worker.channel.peer.request(method, params as never, undefined), deadline]);
    } catch (error) {
      const reason = error instanceof DeadlineError ? error.message : `its ${what} failed: ${describeError(error)}`;
      await this.#quarantine(record, reason);
      throw unavailable(record);
    } finally {
      clearTimeout(timer);
    }
  }

  async #quarantine(record: ExtensionRecord, reason: string): Promise<void> {
    if (record.state !== 'active') return record.stopping;
    const ownedPreToolHook = [...record.registrations.values()].some((registration) => registration.kind === 'beforeToolCall');
    record.state = 'quarantined';
    record.reason = reason;
    record.failClosed = ownedPreToolHook || !record.setupDone;
    record.registrations.clear();
    record.status.clear();
    this.#statusChanged(record);
    for (const pending of record.streams.values()) pending.wake?.();
    this.#notice(`extension "${record.id}" was quarantined: ${reason}`);
    await this.#kill(record);
  }

  /** For reload, unload and close: lets a running activation finish, then kills and reaps. */
  async #stop(record: ExtensionRecord): Promise<void> {
    await record.activating?.catch(() => undefined);
    await this.#kill(record);
  }

  /** Kills the worker (if any) and waits until it is reaped; never waits for activation (quarantine runs inside it). */
  async #kill(record: ExtensionRecord): Promise<void> {
    const worker = record.worker;
    if (worker) {
      record.worker = undefined;
      record.inbox?.close();
      record.inbox = undefined;
      record.stopping = worker.kill();
    }
    await record.stopping;
    record.registrations.clear();
    // A stopped extension's status lines go with it (reload starts a fresh record).
    if (record.status.size > 0) {
      record.status.clear();
      this.#statusChanged(record);
    }
  }
}

class DeadlineError extends Error {}

/** An error answer to the worker's request (json-rpc-2.0 sends its message as is, without logging it). */
function refusal(message: string): JSONRPCErrorException {
  return new JSONRPCErrorException(message, -32000);
}

function unavailable(record: { id: string; state: ExtensionState; reason?: string }): XdogError {
  return new XdogError(ErrorCodes.UNAVAILABLE, `extension "${record.id}" is ${record.state}${record.reason ? `: ${record.reason}` : ''}`, {
    hint: `reload it with \`xdog claw extensions reload ${record.id}\``,
  });
}

/** Refuses an argument context that does not match its prefix (before any callback runs). */
function checkArgumentContext(prefix: string, context: ArgumentContext): void {
  const parsed = ArgumentContextSchema.safeParse(context);
  const points = parsed.success ? [...parsed.data.arguments] : [];
  const { cursor, start, end } = parsed.success ? parsed.data : { cursor: -1, start: -1, end: -1 };
  const problem = !parsed.success
    ? 'it is not {arguments, cursor, start, end}'
    : !(start <= cursor && cursor <= end && end <= points.length)
      ? `its offsets need start <= cursor <= end <= ${points.length} (code points), not ${start}, ${cursor}, ${end}`
      : points.slice(start, cursor).join('') !== prefix
        ? 'its arguments[start:cursor] is not the prefix'
        : undefined;
  if (problem) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `the argument context of a completion is refused: ${problem}`, { hint: 'send the text after the command with the cursor and the token span in Unicode code points, or no context' });
}

function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([promise, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)))]).finally(() => clearTimeout(timer));
}

/** An extension id as it appears in aliases: the package name without "@", "/" as "-". */
export function extensionSlug(id: string): string {
  return id.replace(/^@/, '').replace('/', '-');
}

export function commandAlias(id: string, name: string): string {
  return `ext-${extensionSlug(id)}-${name}`;
}

export function toolAlias(name: string): string {
  return `ext_${name}`;
}

export function providerAlias(id: string, name: string): string {
  return `ext-${extensionSlug(id)}-${name}`;
}
