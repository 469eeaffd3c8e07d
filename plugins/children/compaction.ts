/**
 * How a child compacts: the host's automatic policy (the claw group's
 * `compaction` settings), against the child model's real capacity. The
 * window is the host's `contextWindow`, else the model's declared prompt or
 * context window; the reserve is the host's `reserveTokens`, else the
 * model's declared output ceiling. When either is unknown there is no
 * automatic compaction: a window is never invented. Every compaction of a
 * child archives its complete history first (`archive`), so it is never lost.
 */
import type { CompactionArchive, CompactionConfig, ModelInfo, ModelStreamFn } from '../../core/index.js';

/** The child's compaction config for `model` on `streamFn`, or undefined when the policy is off or the model's capacity unknown. */
export function childCompaction(policy: CompactionConfig | undefined, streamFn: ModelStreamFn, model: string, archive: (archive: CompactionArchive) => Promise<void>): CompactionConfig | undefined {
  if (!policy?.auto) return undefined;
  let info: ModelInfo | undefined;
  try {
    info = streamFn.resolveModel?.(model);
  } catch {
    // Metadata that cannot be read is unknown capacity.
    info = undefined;
  }
  const contextWindow = policy.contextWindow ?? (info?.maxPromptTokens || info?.contextWindow);
  const reserveTokens = policy.reserveTokens ?? info?.maxOutputTokens;
  if (!contextWindow || !reserveTokens) return undefined;
  // The host's persist belongs to its own sessions; a child's history is kept by its archive and its final transcript.
  const { persist: _persist, ...rest } = policy;
  return { ...rest, contextWindow, reserveTokens, archive };
}
