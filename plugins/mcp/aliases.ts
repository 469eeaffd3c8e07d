/**
 * Tool aliases: `<server>__<tool>`, stable across connections and within
 * the provider tool-name rule (`^[A-Za-z0-9_-]{1,64}$`). A tool name that
 * needs changing to fit gets a hash of its real name appended, so two
 * different names never share an alias.
 */
import { createHash } from 'node:crypto';
import { LIMITS } from '../../core/index.js';

const SEPARATOR = '__';

/** The alias an agent sees for `tool` on `server`. */
export function toolAlias(server: string, tool: string): string {
  const plain = `${server}${SEPARATOR}${tool}`;
  if (/^[A-Za-z0-9_-]+$/.test(plain) && plain.length <= LIMITS.mcpToolAliasLength) return plain;
  const hash = createHash('sha256').update(tool).digest('hex').slice(0, 8);
  const safe = tool.replace(/[^A-Za-z0-9_-]/g, '_');
  const room = LIMITS.mcpToolAliasLength - server.length - SEPARATOR.length - hash.length - 1;
  return `${server}${SEPARATOR}${safe.slice(0, Math.max(0, room))}_${hash}`;
}
