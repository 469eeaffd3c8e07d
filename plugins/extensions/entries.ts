/**
 * Extension entries as the store holds them: `custom` entries of type
 * `extension:ID:KIND`. Light on purpose (no host, no worker): the gateway's
 * `getEntries` and `xdog claw sessions entries` read them through it.
 */
import type { Json } from './api.js';

/** The `custom` entry type of an extension's entries: `extension:ID:KIND`. */
export const ENTRY_TYPE_PREFIX = 'extension:';

/** One extension entry read back. */
export interface ExtensionEntry {
  id: string;
  extension: string;
  kind: string;
  data: Json;
}

/** The extension entries among `entries` (a session's path, root first), oldest first; only `extensionId`'s when given. */
export function extensionEntriesOn(entries: ReadonlyArray<{ id: number; kind: string; payload: unknown }>, extensionId?: string): ExtensionEntry[] {
  const found: ExtensionEntry[] = [];
  for (const entry of entries) {
    if (entry.kind !== 'custom') continue;
    const payload = entry.payload as { type?: unknown; data?: Json };
    const type = String(payload.type);
    if (!type.startsWith(ENTRY_TYPE_PREFIX)) continue;
    // Package names and kinds hold no ":", so the last one splits the id from the kind.
    const rest = type.slice(ENTRY_TYPE_PREFIX.length);
    const colon = rest.lastIndexOf(':');
    if (colon <= 0) continue;
    const extension = rest.slice(0, colon);
    if (extensionId !== undefined && extension !== extensionId) continue;
    found.push({ id: String(entry.id), extension, kind: rest.slice(colon + 1), data: payload.data ?? null });
  }
  return found;
}
