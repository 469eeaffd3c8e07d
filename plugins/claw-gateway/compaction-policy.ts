/**
 * A claw group's automatic compaction policy, from its `compaction`
 * settings: on unless `auto: false`, within runs and on a provider overflow,
 * with the configured reserve, recent context and window (the agent works
 * against the model's declared window when none is configured). The group's
 * sessions add their `persist`; its children (plugins/children) use the same
 * policy against their own model's capacity.
 */
import type { ClawGroupConfig, CompactionConfig } from '../../core/index.js';

export function compactionPolicy(settings: ClawGroupConfig['compaction']): CompactionConfig {
  return {
    auto: settings?.auto !== false,
    retryOnOverflow: settings?.auto !== false,
    ...(settings?.reserve_tokens === undefined ? {} : { reserveTokens: settings.reserve_tokens }),
    ...(settings?.keep_recent_tokens === undefined ? {} : { keepRecentTokens: settings.keep_recent_tokens }),
    ...(settings?.context_window === undefined ? {} : { contextWindow: settings.context_window }),
  };
}
