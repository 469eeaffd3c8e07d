/**
 * Extensions tap compaction through the agent's own hooks: every
 * `session_before_compact` callback sees a copy of the preparation (chunked
 * when large) and may veto or supply the summary; `session_compact` callbacks
 * observe the commit. The core checks a summary's limits and cut; here, a
 * second summary among extensions, or a failing callback, fails the
 * compaction closed (history unchanged, no model fallback).
 */
import type { Agent } from '../../core/agent/agent.js';
import { ErrorCodes, XdogError, describeError } from '../../core/errors.js';
import type { BeforeCompactResult, CompactionPreparation } from '../../hooks/agent.js';
import { tapHook, type Disposer } from '../../hooks/tap.js';
import type { ExtensionHost } from './host.js';
import { BeforeCompactAnswerSchema, NullAnswerSchema } from './protocol.js';

const TAP = 'extensions';

export function bridgeCompaction(host: ExtensionHost, agent: Agent): Disposer[] {
  const callbacks = (event: 'session_before_compact' | 'session_compact') => host.registrations('event').filter(({ registration }) => registration.meta.event === event);
  return [
    tapHook(agent.hooks.beforeCompact, TAP, async (preparation: CompactionPreparation): Promise<BeforeCompactResult | undefined> => {
      await host.activateAll();
      let custom: { id: string; answer: BeforeCompactResult } | undefined;
      for (const { id, registration } of callbacks('session_before_compact')) {
        let answer;
        try {
          answer = await host.invoke(id, 'invoke', { handle: registration.handle, input: preparation }, BeforeCompactAnswerSchema, 'session_before_compact');
        } catch (error) {
          throw new XdogError(ErrorCodes.HOOK_FAILED, `extension "${id}" failed its session_before_compact callback, so the compaction fails closed: ${describeError(error)}`);
        }
        if (answer === null || !('cancel' in answer || 'summary' in answer)) continue;
        if ('cancel' in answer) return { cancel: true, reason: `extension "${id}"${answer.reason ? `: ${answer.reason}` : ' vetoed it'}` };
        if (custom) throw new XdogError(ErrorCodes.HOOK_FAILED, `extensions "${custom.id}" and "${id}" both supplied a compaction summary; only one may`);
        custom = { id, answer: answer as BeforeCompactResult };
      }
      return custom?.answer;
    }),
    tapHook(agent.hooks.compact, TAP, async (committed) => {
      for (const { id, registration } of callbacks('session_compact')) {
        // A failing observer is quarantined by invoke(); the committed compaction stands.
        await host.invoke(id, 'invoke', { handle: registration.handle, input: committed }, NullAnswerSchema, 'session_compact').catch(() => undefined);
      }
    }),
  ];
}
