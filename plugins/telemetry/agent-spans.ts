/**
 * An agent's steps as GenAI spans: `invoke_agent` per run, `chat` per model
 * call, `execute_tool` per tool call, a compaction span; and the matching
 * metrics. Written on the Telemetry seam only, so it works with any provider.
 */
import type { AgentInstrumentation, AssistantMessage, Message, ModelCallStepInfo, Telemetry, TelemetryAttributes, Usage } from '../../core/index.js';
import { GenAi, GenAiOperation, Metric, Xdog } from './semconv.js';

/** Who the agent is, for its spans' attributes. */
export interface AgentIdentity {
  /** `gen_ai.agent.name`: a claw group, a child's name, or "xdog". */
  name?: string;
  /** Attributes every span and metric point of this agent carries (a group). */
  attributes?: TelemetryAttributes;
  /** What a model call cost in US dollars, null when unknown: the usage ledger's price function (`costFunction(config)`). */
  cost?: (model: string, usage: Usage) => number | null;
}

/** "anthropic/claude-x" → provider "anthropic", model "claude-x"; a bare id has no provider. */
export function splitModel(model: string): { provider?: string; model: string } {
  const slash = model.indexOf('/');
  return slash > 0 ? { provider: model.slice(0, slash), model: model.slice(slash + 1) } : { model };
}

const FINISH_REASONS: Record<string, string> = { stop: 'stop', length: 'length', toolUse: 'tool_call', error: 'error', aborted: 'cancelled' };

function textOf(message: Message): string {
  if (typeof message.content === 'string') return message.content;
  return message.content.map((part) => (part.type === 'text' ? part.text : part.type === 'toolCall' ? `[tool call ${part.name}]` : part.type === 'image' ? '[image]' : '')).join('');
}

/** Messages as the GenAI convention's JSON (role + text parts), redacted and bounded by `telemetry.content`. */
function messagesContent(telemetry: Telemetry, messages: readonly Message[]): string | undefined {
  if (!telemetry.captureContent) return undefined;
  return telemetry.content(JSON.stringify(messages.map((message) => ({ role: message.role === 'toolResult' ? 'tool' : message.role, parts: [{ type: 'text', content: textOf(message) }] }))));
}

/** The instrumentation of one agent; set it with `agent.setInstrumentation()`. */
export function agentInstrumentation(telemetry: Telemetry, identity: AgentIdentity = {}): AgentInstrumentation {
  const base = identity.attributes ?? {};
  const agentName = identity.name ?? 'xdog';
  const { metrics } = telemetry;
  return {
    run(info, run) {
      const { provider, model } = splitModel(info.model);
      const attributes = { ...base, [GenAi.operationName]: GenAiOperation.invokeAgent, [GenAi.agentName]: agentName, [GenAi.providerName]: provider, [GenAi.requestModel]: model };
      return telemetry.inSpan(`${GenAiOperation.invokeAgent} ${agentName}`, { attributes: { ...attributes, [GenAi.inputMessages]: messagesContent(telemetry, info.input) } }, async (span) => {
        const started = performance.now();
        const result = await run();
        span.setAttributes({ [Xdog.runStatus]: result.status });
        const output = result.newMessages.filter((message) => message.role === 'assistant');
        if (output.length) span.setAttributes({ [GenAi.outputMessages]: messagesContent(telemetry, output.slice(-1)) });
        if (result.status === 'error') span.fail('run_error', result.errorMessage?.slice(0, 500));
        const point = { ...base, [Xdog.runStatus]: result.status };
        metrics.add(Metric.runs, 1, point);
        metrics.record(Metric.runDuration, (performance.now() - started) / 1000, point);
        if (result.status === 'error') metrics.add(Metric.errors, 1, { ...base, [ErrorKind]: 'run' });
        return result;
      });
    },
    modelCall: (info, run) => tracedModelCall(telemetry, identity, info, run),
    toolCall(info, run) {
      const name = info.toolCall.name;
      const attributes: TelemetryAttributes = {
        ...base,
        [GenAi.operationName]: GenAiOperation.executeTool,
        [GenAi.toolName]: name,
        [GenAi.toolCallId]: info.toolCall.id,
        [GenAi.toolType]: info.remote ? 'extension' : 'function',
        [Xdog.toolRemote]: info.remote,
        [GenAi.toolArguments]: telemetry.captureContent ? telemetry.content(JSON.stringify(info.toolCall.arguments)) : undefined,
      };
      return telemetry.inSpan(`${GenAiOperation.executeTool} ${name}`, { attributes }, async (span) => {
        const outcome = await run();
        const text = outcome.result.content.map((part) => (part.type === 'text' ? part.text : '[image]')).join('');
        span.setAttributes({ [Xdog.toolOutcome]: outcome.isError ? 'error' : 'ok', [GenAi.toolResult]: telemetry.content(text) });
        if (outcome.isError) span.fail('tool_error');
        metrics.add(Metric.toolCalls, 1, { ...base, [GenAi.toolName]: name, [Xdog.toolOutcome]: outcome.isError ? 'error' : 'ok' });
        if (outcome.isError) metrics.add(Metric.toolErrors, 1, { ...base, [GenAi.toolName]: name });
        return outcome;
      });
    },
    compaction(info, run) {
      return telemetry.inSpan('compaction', { attributes: { ...base, [Xdog.compactionReason]: info.reason, [GenAi.requestModel]: splitModel(info.model).model } }, async (span) => {
        const result = await run();
        span.setAttributes({ [Xdog.compacted]: result.compacted });
        return result;
      });
    },
  };
}

/**
 * One model call as a GenAI `chat` CLIENT span (under the active span) with
 * its metrics: the loop's calls, and those outside it (a compaction's
 * summary, an MCP server's sampling request). `run` performs the call once.
 */
export function tracedModelCall(telemetry: Telemetry, identity: AgentIdentity, info: ModelCallStepInfo, run: () => Promise<AssistantMessage>): Promise<AssistantMessage> {
  const { metrics } = telemetry;
  const { provider, model } = splitModel(info.model);
  const attributes = { ...identity.attributes, [GenAi.operationName]: GenAiOperation.chat, [GenAi.providerName]: provider, [GenAi.requestModel]: model };
  return telemetry.inSpan(`${GenAiOperation.chat} ${model}`, { kind: 'client', attributes: { ...attributes, [GenAi.inputMessages]: messagesContent(telemetry, info.context.messages) } }, async (span) => {
    const started = performance.now();
    const message: AssistantMessage = await run();
    const finish = FINISH_REASONS[message.stopReason] ?? message.stopReason;
    // Priced as the ledger prices the row it writes for this call (never 0 for an unknown price: then absent).
    const cost = identity.cost?.(info.model, message.usage) ?? undefined;
    span.setAttributes({
      [Xdog.costUsd]: cost,
      [GenAi.responseModel]: splitModel(message.model).model,
      [GenAi.finishReasons]: [finish],
      [GenAi.inputTokens]: message.usage.input,
      [GenAi.outputTokens]: message.usage.output,
      [GenAi.cacheReadTokens]: message.usage.cacheRead,
      [GenAi.cacheCreationTokens]: message.usage.cacheWrite,
      [GenAi.outputMessages]: messagesContent(telemetry, [message]),
    });
    if (message.stopReason === 'error') span.fail('model_error', message.errorMessage?.slice(0, 500));
    const point = { ...identity.attributes, [GenAi.operationName]: GenAiOperation.chat, [GenAi.providerName]: provider, [GenAi.requestModel]: model };
    metrics.add(Metric.modelCalls, 1, point);
    metrics.record(Metric.operationDuration, (performance.now() - started) / 1000, point);
    metrics.record(Metric.tokenUsage, message.usage.input, { ...point, [GenAi.tokenType]: 'input' });
    metrics.record(Metric.tokenUsage, message.usage.output, { ...point, [GenAi.tokenType]: 'output' });
    if (cost !== undefined) metrics.add(Metric.cost, cost, point);
    if (message.stopReason === 'error') metrics.add(Metric.errors, 1, { ...identity.attributes, [ErrorKind]: 'model' });
    return message;
  });
}

/** The kind of failure an `xdog.errors` point counts. */
const ErrorKind = 'xdog.error.kind';
