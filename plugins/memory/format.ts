/** One line per memory, as the tools show them to a model and the CLI to a person. */
import type { MemoryEntry } from './entry.js';

/** `#12 2026-12-01 [deploy, infra] The staging database is db2.internal` (inner newlines shown as ⏎). */
export function formatMemory(entry: MemoryEntry): string {
  const day = new Date(entry.createdAt).toISOString().slice(0, 10);
  const tags = entry.tags.length ? ` [${entry.tags.join(', ')}]` : '';
  return `#${entry.id} ${day}${tags} ${entry.text.replaceAll(/\r?\n/g, ' ⏎ ')}`;
}
