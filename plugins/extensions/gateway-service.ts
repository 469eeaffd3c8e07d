/**
 * The extensions gateway service: `extensions.list|reload|unload` per group
 * (reload and unload need an idle group), and durable entries: an extension's
 * `appendEntry` becomes a `custom` entry in the group's active session,
 * committed before the extension gets its receipt, within the per-session
 * limits (counted from the store, so they hold across restarts and workers).
 */
import { z } from 'zod';
import { ErrorCodes, XdogError } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';
import { gatewayMethod, type GatewayHost, type GatewayService } from '../claw-gateway/index.js';
import { appendInTransaction, lockSessionPath, type Entry, type SessionStore } from '../sessions/index.js';
import type { Json } from './api.js';
import type { ExtensionEntrySink, ExtensionHost } from './host.js';

/** The `custom` entry type of an extension's entries: `extension:ID:KIND`. */
export const ENTRY_TYPE_PREFIX = 'extension:';

const Target = z.object({ group: z.string().optional(), id: z.string().min(1) }).strict();

export function extensionsService(hostOf: (kernel: unknown) => ExtensionHost | undefined): GatewayService {
  let gateway: GatewayHost | undefined;
  const hostIn = (group: string | undefined) => {
    const runtime = gateway!.group(group);
    const host = hostOf(runtime.kernel);
    if (!host) throw new XdogError(ErrorCodes.UNAVAILABLE, `group ${runtime.name} has no extension host`, { hint: 'the extensions plugin is not selected' });
    return { runtime, host };
  };
  return {
    name: 'extensions',
    capabilities: ['extensions:1'],
    methods: {
      'extensions.list': gatewayMethod(z.object({ group: z.string().optional() }).strict(), (params) => hostIn(params.group).host.list()),
      'extensions.reload': gatewayMethod(Target, (params) => {
        const { runtime, host } = hostIn(params.group);
        return runtime.control(runtime.activeSessionId, () => host.reload(params.id));
      }),
      'extensions.unload': gatewayMethod(Target, (params) => {
        const { runtime, host } = hostIn(params.group);
        return runtime.control(runtime.activeSessionId, () => host.unload(params.id));
      }),
    },
    start(host) {
      gateway = host;
      for (const runtime of host.groups.values()) {
        const extensions = hostOf(runtime.kernel);
        if (extensions) extensions.entries = sessionEntries(host.store, () => runtime.activeSessionId, () => host.clock.now());
      }
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
  };
}

function entryBytes(data: Json): number {
  return Buffer.byteLength(JSON.stringify(data ?? null));
}

function isExtensionEntry(entry: Entry): boolean {
  return entry.kind === 'custom' && String((entry.payload as { type?: unknown }).type).startsWith(ENTRY_TYPE_PREFIX);
}
