/**
 * The extensions gateway service: `extensions.list|reload|unload` per group
 * (reload and unload need an idle group), extension commands and their
 * completion, each run's extensions activated and their tools given to the
 * group's agent, and durable entries: an extension's
 * `appendEntry` becomes a `custom` entry in the group's active session,
 * committed before the extension gets its receipt, within the per-session
 * limits (counted from the store, so they hold across restarts and workers).
 */
import { z } from 'zod';
import { ErrorCodes, XdogError } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';
import { textWithin } from '../../core/text-limit.js';
import { Notifications, followGroups, gatewayMethod, type GatewayHost, type GatewayService } from '../claw-gateway/tokens.js';
import { appendInTransaction, lockSessionPath, type Entry, type SessionStore } from '../sessions/tokens.js';
import type { Json } from './api.js';
import type { ExtensionEntrySink, ExtensionHost } from './host.js';
import { inspectorOf } from './inspector.js';
import { syncExtensionTools } from './provider.js';
import { DialogRelay } from './dialog-relay.js';
import { ArgumentContextSchema } from './protocol.js';
import { olderClientText } from './command-result.js';
import { sessionCatalog } from './session-catalog.js';
import { ENTRY_TYPE_PREFIX, extensionEntriesOn } from './entries.js';

export { ENTRY_TYPE_PREFIX } from './entries.js';

const Target = z.object({ group: z.string().optional(), id: z.string().min(1) }).strict();
const CommandName = z.string().regex(/^\/?(ext-[\w.-]{1,200}|[a-z][a-z0-9-]{0,63})$/, 'an extension command is /ext-ID-NAME or a public name /NAME');
/** `results: true` (extension-command-results:1): a rich result comes whole as `result`; without it, only its text summary. */
const CommandCall = z.object({ group: z.string().optional(), command: CommandName, args: textWithin(LIMITS.messageTextBytes).default(''), results: z.boolean().optional() }).strict();
const AnswerCall = z.object({ group: z.string().optional(), dialogId: z.string().min(1).max(64), answer: z.union([z.string().max(LIMITS.messageTextBytes), z.boolean(), z.null()]) }).strict();
/** `context` (extension-argument-context:1): the whole argument, cursor and token span, from a client with the whole draft. */
const CompleteCall = z
  .object({ group: z.string().optional(), command: CommandName, prefix: textWithin(LIMITS.extensionCompletionPrefixBytes).default(''), context: ArgumentContextSchema.extend({ arguments: textWithin(LIMITS.messageTextBytes) }).optional() })
  .strict();

export function extensionsService(hostOf: (kernel: unknown) => ExtensionHost | undefined): GatewayService {
  let gateway: GatewayHost | undefined;
  let dialogs: DialogRelay | undefined;
  const hostIn = (group: string | undefined) => {
    const runtime = gateway!.group(group);
    const host = hostOf(runtime.kernel);
    if (!host) throw new XdogError(ErrorCodes.UNAVAILABLE, `group ${runtime.name} has no extension host`, { hint: 'the extensions plugin is not selected' });
    return { runtime, host };
  };
  return {
    name: 'extensions',
    capabilities: ['extensions:1', 'extension-command-results:1', 'extension-argument-context:1'],
    methods: {
      // `activate: true` is `/extensions`: it starts the enabled extensions (lazy activation), then lists them.
      'extensions.list': gatewayMethod(z.object({ group: z.string().optional(), activate: z.boolean().optional() }).strict(), async (params) => {
        const { host } = hostIn(params.group);
        if (params.activate) await host.activateAll();
        return host.list();
      }),
      // A person may stop waiting for a command (Escape in the TUI): the gateway answers ABORTED, the callback runs to its own end.
      // A rich result stays below clawFrameBytes (LIMITS.extensionCommandResultBytes): it goes in the one response.
      'extensions.command': gatewayMethod(
        CommandCall,
        async (params) => {
          const answer = await hostIn(params.group).host.runCommandResult(params.command, params.args);
          if (typeof answer === 'string') return { text: answer };
          return params.results ? { text: answer.summary, result: answer } : { text: olderClientText(answer) };
        },
        { cancellable: true },
      ),
      'extensions.complete': gatewayMethod(CompleteCall, async (params) => ({ items: await hostIn(params.group).host.completeCommand(params.command, params.prefix, params.context) }), { cancellable: true }),
      // Extension dialogs (dialog-relay.ts): the ones waiting (a client that connects later shows them), and a client's answer.
      'extensions.dialogs': gatewayMethod(z.object({ group: z.string().optional() }).strict(), (params) => dialogs!.pendingIn(gateway!.group(params.group).name)),
      'extensions.answer': gatewayMethod(AnswerCall, (params) => {
        dialogs!.answer(gateway!.group(params.group).name, params.dialogId, params.answer);
        return { answered: params.dialogId };
      }),
      'extensions.reload': gatewayMethod(Target, (params) => {
        const { runtime, host } = hostIn(params.group);
        return runtime.control(runtime.activeSessionId, () => host.reload(params.id), 'loosen');
      }),
      'extensions.unload': gatewayMethod(Target, (params) => {
        const { runtime, host } = hostIn(params.group);
        return runtime.control(runtime.activeSessionId, () => host.unload(params.id), 'loosen');
      }),
    },
    async start(host) {
      gateway = host;
      const relay = (dialogs = new DialogRelay((group, method, params) => host.publish(group, null, method, params), () => host.clock.now()));
      // Each group as the gateway takes it (a worker takes groups over while it runs); its kernel closes its extensions with it.
      await followGroups(host, 'extensions', {
        ready: (runtime) => {
          const extensions = hostOf(runtime.kernel);
          if (!extensions) return;
          extensions.ui = { dialog: (request, extensionId) => relay.ask(runtime.name, extensionId, request) };
          extensions.entries = sessionEntries(host.store, () => runtime.activeSessionId, () => host.clock.now());
          // Interactive commands read the group's own catalog, never another group's.
          extensions.sessions = sessionCatalog(host.store, runtime.name, () => runtime.activeSessionId);
          // claw send shows why an extension was quarantined, not only the gateway log.
          extensions.relayNotice = (message) => host.publish(runtime.name, null, Notifications.notice, { group: runtime.name, source: 'extensions', message });
          // The TUI draws the status lines under the chat; a client that connects later reads them from extensions.list.
          extensions.relayStatus = (extension, status) => host.publish(runtime.name, null, 'extension.status', { group: runtime.name, extension, status });
        },
      });
      // Each run: its extensions active (lazy: the first turn), its agent inspected, its tools in step with what they registered.
      host.hooks.runStarting.tapPromise('extensions', async ({ group, sessionId, agent }) => {
        const runtime = host.group(group);
        const extensions = hostOf(runtime.kernel);
        if (!extensions) return;
        await extensions.activateAll();
        extensions.inspector = inspectorOf(agent, { name: async () => (await host.store.getSession(sessionId)).name, model: async () => (await host.store.getState(sessionId)).model });
        syncExtensionTools(agent, extensions, runtime.kernel.config.extension_allow_tools ?? []);
      });
    },
  };
}

/**
 * Appends extension entries to the active session. The limits are checked
 * over the session's current path and the entry appended in one store
 * transaction (the session row locked first), so concurrent appends, from
 * this process or another worker, cannot pass a limit together.
 */
export function sessionEntries(store: SessionStore, activeSession: () => string | null, now: () => number = Date.now): ExtensionEntrySink {
  return {
    async append(extensionId, kind, data) {
      const sessionId = activeSession();
      if (!sessionId) throw new XdogError(ErrorCodes.UNAVAILABLE, 'the group has no active session yet', { hint: 'append entries from a turn' });
      const bytes = entryBytes(data);
      if (bytes > LIMITS.extensionEntryBytes) throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `an entry is ${bytes} bytes, over the ${LIMITS.extensionEntryBytes}-byte limit`);
      return store.withTransaction(async (sql) => {
        const { session, path } = await lockSessionPath(sql, sessionId);
        const existing = path.filter(isExtensionEntry);
        if (existing.length >= LIMITS.extensionEntriesPerSession) {
          throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `the session already holds ${existing.length} extension entries, the limit`, { hint: 'start a new session' });
        }
        const total = existing.reduce((sum, entry) => sum + entryBytes((entry.payload as { data?: Json }).data ?? null), 0);
        if (total + bytes > LIMITS.extensionEntriesTotalBytes) {
          throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `the session's extension entries would be ${total + bytes} bytes, over the ${LIMITS.extensionEntriesTotalBytes}-byte limit`);
        }
        const [entry] = await appendInTransaction(sql, session, [{ kind: 'custom', payload: { type: `${ENTRY_TYPE_PREFIX}${extensionId}:${kind}`, data } }], now());
        return { id: String(entry!.id) };
      });
    },
    async list(extensionId) {
      const sessionId = activeSession();
      if (!sessionId) return [];
      return extensionEntriesOn(await store.path(sessionId), extensionId).map(({ id, kind, data }) => ({ id, kind, data }));
    },
  };
}

function entryBytes(data: Json): number {
  return Buffer.byteLength(JSON.stringify(data ?? null));
}

function isExtensionEntry(entry: Entry): boolean {
  return entry.kind === 'custom' && String((entry.payload as { type?: unknown }).type).startsWith(ENTRY_TYPE_PREFIX);
}
