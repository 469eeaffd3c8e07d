/**
 * Bridges the extension host into one agent's hooks, the same tapable hooks
 * in-process plugins tap: pre-tool veto or rewrite, post-tool transform,
 * input admission, context rewriting, lifecycle events. Extensions activate
 * lazily on the agent's first input.
 */
import type { Agent } from '../../core/agent/agent.js';
import { snapshotTaps } from '../../core/agent/tap-dispatch.js';
import { checkToolArguments } from '../../core/agent/tool-arguments.js';
import { ErrorCodes, XdogError, describeError } from '../../core/errors.js';
import { tapHook, type Disposer } from '../../hooks/tap.js';
import type { BeforeToolCallContext, BeforeToolCallResult } from '../../hooks/agent.js';
import type { Message } from '../../core/agent/messages.js';
import type { ExtensionHost } from './host.js';
import { AfterAnswerSchema, BeforeAnswerSchema, ContextAnswerSchema, InputAnswerSchema, LIFECYCLE_EVENTS, NullAnswerSchema } from './protocol.js';
import { bridgeCompaction } from './compaction.js';

/** The name of the bridge's taps; its own re-check of rewritten arguments skips them. */
export const BRIDGE_TAP = 'extensions';

const block = (reason: string): BeforeToolCallResult => ({ block: true, reason });

export function bridgeAgent(host: ExtensionHost, agent: Agent): Disposer[] {
  const hooks = agent.hooks;
  const disposers: Disposer[] = [];
  // The context tap is made only while an extension has a context callback: any context tap
  // makes the agent re-validate the whole rewritten transcript before every model call.
  let untapContext: Disposer | undefined;
  const syncContextTap = (): void => {
    const wanted = host.registrations('context').length > 0;
    if (wanted && !untapContext) untapContext = tapHook(hooks.context, BRIDGE_TAP, rewriteContext);
    if (!wanted && untapContext) {
      untapContext();
      untapContext = undefined;
    }
  };
  const rewriteContext = async (messages: Message[]): Promise<Message[]> => {
    let current = messages;
    for (const { id, registration } of host.registrations('context')) {
      const answer = await host.invoke(id, 'invoke', { handle: registration.handle, input: current }, ContextAnswerSchema, 'context').catch((error: unknown) => {
        // Over the transfer limit the context cannot reach the extension at all: fail loudly, never skip its rewrite.
        if (XdogError.is(error, ErrorCodes.LIMIT_EXCEEDED)) throw error;
        return null;
      });
      // The agent validates the result (roles, tool-call pairing) before the model sees it.
      if (answer) current = answer as Message[];
    }
    return current;
  };
  disposers.push(() => untapContext?.());

  disposers.push(
    tapHook(hooks.inputTransform, BRIDGE_TAP, async (request: { text: string; source: string }) => {
      await host.activateAll();
      syncContextTap();
      if (request.source === 'continue') return undefined; // system inputs are exempt
      let text = request.text;
      for (const { id, registration } of host.registrations('input')) {
        const answer = await host.invoke(id, 'invoke', { handle: registration.handle, input: { text, source: request.source } }, InputAnswerSchema, 'onInput').catch(() => null);
        if (!answer || answer.action === 'continue') continue;
        if (answer.action === 'transform') text = answer.text;
        else return answer;
      }
      return text === request.text ? undefined : { action: 'transform', text };
    }),
  );

  disposers.push(
    tapHook(hooks.beforeToolCall, BRIDGE_TAP, async (context: BeforeToolCallContext) => {
      const closed = host.failClosedReason();
      if (closed) return block(closed);
      for (const { id, registration } of host.registrations('beforeToolCall')) {
        const input = { toolName: context.toolCall.name, toolCallId: context.toolCall.id, args: context.args };
        let answer;
        try {
          answer = await host.invoke(id, 'invoke', { handle: registration.handle, input }, BeforeAnswerSchema, 'beforeToolCall');
        } catch (error) {
          return block(`extension "${id}" failed its pre-tool check, so the call fails closed: ${describeError(error)}`);
        }
        if (answer === null) continue;
        if ('block' in answer) return block(`extension "${id}": ${answer.reason}`);
        const rewritten = await recheck(agent, context, answer.args);
        if (typeof rewritten === 'string') return block(`extension "${id}" rewrote the arguments, and ${rewritten}`);
        // In place: the executor runs with the object the hooks saw.
        for (const key of Object.keys(context.args)) delete context.args[key];
        Object.assign(context.args, rewritten);
      }
      return undefined;
    }),
  );

  disposers.push(
    tapHook(hooks.afterToolCall, BRIDGE_TAP, async (context) => {
      let current = context;
      for (const { id, registration } of host.registrations('afterToolCall')) {
        const input = { toolName: current.toolCall.name, toolCallId: current.toolCall.id, args: current.args, content: current.result.content, isError: current.isError };
        const answer = await host.invoke(id, 'invoke', { handle: registration.handle, input }, AfterAnswerSchema, 'afterToolCall').catch(() => null);
        if (!answer) continue;
        current = {
          ...current,
          result: { ...current.result, ...(answer.content && { content: answer.content }), ...(answer.isError !== undefined && { isError: answer.isError }) },
          isError: answer.isError ?? current.isError,
        };
      }
      return current;
    }),
  );

  disposers.push(...bridgeCompaction(host, agent));

  disposers.push(
    agent.subscribe((event) => {
      if (!(LIFECYCLE_EVENTS as readonly string[]).includes(event.type)) return;
      const input = { event: event.type, ...('turn' in event && { turn: event.turn }) };
      for (const { id, registration } of host.registrations('event')) {
        if (registration.meta.event !== event.type) continue;
        // invoke() has already quarantined the extension when this rejects; the event is only a notice, so the run goes on.
        void host.invoke(id, 'invoke', { handle: registration.handle, input }, NullAnswerSchema, `${event.type} handler`).catch(() => undefined);
      }
    }),
  );
  return disposers;
}

/**
 * Validates rewritten arguments against the tool and runs the other pre-tool
 * gates on them again (a rewrite cannot slip past policy); the checked
 * arguments, or why they are refused.
 */
async function recheck(agent: Agent, context: BeforeToolCallContext, args: Record<string, unknown>): Promise<Record<string, unknown> | string> {
  const checked = checkToolArguments(context.tool, args);
  if (!checked.ok) return `they are invalid: ${checked.error}`;
  for (const tap of snapshotTaps(agent.hooks.beforeToolCall)) {
    if (tap.name === BRIDGE_TAP) continue;
    let answer: unknown;
    try {
      answer = await tap.call({ ...context, args: checked.args });
    } catch (error) {
      return `permission hook "${tap.name}" failed on them: ${describeError(error)}`;
    }
    if (answer !== undefined && answer !== null) {
      const reason = (answer as { reason?: unknown }).reason;
      return `permission hook "${tap.name}" blocked them: ${typeof reason === 'string' ? reason : 'no reason given'}`;
    }
  }
  return checked.args;
}
