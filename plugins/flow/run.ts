/**
 * Runs a compiled Flow plan: steps in order, each output validated against
 * its schema before the next step may use it, then the result mapping,
 * validated too. A failed step stops the run; the result carries its error
 * and the outputs so far. A flow is trusted code: its steps call tools
 * directly and its agents are fresh, so no host agent's approval hooks,
 * active-tool selection or allow-lists apply.
 */
import {
  Agent,
  ErrorCodes,
  LIMITS,
  XdogError,
  describeError,
  utf8Bytes,
  type AgentTool,
  type AgentToolResult,
  type CapabilityRuntime,
} from '../../core/index.js';
import { schemaProblems } from './json-schema.js';
import type { AgentStepPlan, FlowPlan, StepPlan, ToolStepPlan } from './plan.js';
import { toolSignature } from './compile.js';
import { renderTemplate, renderValue, type FlowReference } from './template.js';
import { resolveInputs } from './inputs.js';
import { SUBMIT_RESULT_NAME, structuredResult } from './structured-result.js';

/** Progress of a run, for UIs and logs. */
export type FlowEvent =
  | { type: 'step_start'; step: string; kind: StepPlan['kind'] }
  | { type: 'step_end'; step: string; output: unknown }
  | { type: 'step_failed'; step: string; error: { code: string; message: string; hint?: string } };

/** What a run needs besides the plan and inputs. */
export interface FlowRunOptions {
  /** The model for agent steps; a plan with agent steps fails without it. */
  runtime?: CapabilityRuntime;
  /** Tools the steps may use (tool steps by name, agent steps by their `tools` list). */
  tools?: readonly AgentTool[];
  signal?: AbortSignal;
  onEvent?(event: FlowEvent): void;
}

/** How a run ended. `steps` holds every output produced, by step id. */
export type FlowRunResult =
  | { status: 'completed'; flow: string; output: Record<string, unknown>; steps: Record<string, unknown> }
  | { status: 'failed'; flow: string; failedStep: string; error: { code: string; message: string; hint?: string }; steps: Record<string, unknown> };

const AGENT_SYSTEM_PROMPT =
  'You are one step of a workflow. Do the task, then call the submit_result tool exactly once with the result; ' +
  'it checks the result against the required schema and tells you what to fix if it does not fit.';

/** Runs a plan. Bad inputs throw; a failing step returns a `failed` result. */
export async function runFlow(plan: FlowPlan, givenInputs: Record<string, unknown>, options: FlowRunOptions = {}): Promise<FlowRunResult> {
  const inputs = resolveInputs(plan, givenInputs);
  const steps: Record<string, unknown> = {};
  const resolve = (ref: FlowReference) => lookup(ref.root === 'inputs' ? inputs[ref.name] : steps[ref.name], ref);
  const tools = new Map((options.tools ?? []).map((tool) => [tool.name, tool]));
  for (const step of plan.steps) {
    options.onEvent?.({ type: 'step_start', step: step.id, kind: step.kind });
    try {
      if (options.signal?.aborted) throw new XdogError(ErrorCodes.ABORTED, 'the flow run was cancelled', { hint: 'run it again' });
      const output = step.kind === 'tool' ? await runToolStep(step, tools, resolve, options) : await runAgentStep(step, tools, resolve, options);
      const problem = schemaProblems(step.output, output);
      if (problem) {
        throw new XdogError(ErrorCodes.FLOW_STEP_FAILED, `the output does not fit the step's schema: ${problem}`, { hint: `fix the step or its output schema (line ${step.line})` });
      }
      steps[step.id] = output;
      options.onEvent?.({ type: 'step_end', step: step.id, output });
    } catch (error) {
      const failure = XdogError.is(error) ? error : new XdogError(ErrorCodes.FLOW_STEP_FAILED, describeError(error), { cause: error });
      const described = { code: failure.code, message: `step "${step.id}" failed: ${failure.message}`, ...(failure.hint ? { hint: failure.hint } : {}) };
      options.onEvent?.({ type: 'step_failed', step: step.id, error: described });
      return { status: 'failed', flow: plan.flow, failedStep: step.id, error: described, steps };
    }
  }
  const output = Object.fromEntries(Object.entries(plan.output.mapping).map(([name, template]) => [name, renderTemplate(template, resolve)]));
  const problem = schemaProblems(plan.output.schema, output);
  if (problem) {
    const error = { code: ErrorCodes.FLOW_STEP_FAILED, message: `the flow result does not fit its schema: ${problem}`, hint: 'check the output mapping' };
    return { status: 'failed', flow: plan.flow, failedStep: '(output)', error, steps };
  }
  checkSize('the flow result', output);
  return { status: 'completed', flow: plan.flow, output, steps };
}

async function runToolStep(step: ToolStepPlan, tools: Map<string, AgentTool>, resolve: (ref: FlowReference) => unknown, options: FlowRunOptions): Promise<unknown> {
  const tool = tools.get(step.tool);
  if (!tool) {
    throw new XdogError(ErrorCodes.NOT_FOUND, `tool "${step.tool}" is not available to this run`, {
      hint: `available tools: ${[...tools.keys()].join(', ') || 'none'}`,
    });
  }
  const args = renderValue(step.args, resolve) as Record<string, unknown>;
  checkSize(`the arguments of tool "${step.tool}"`, args);
  const problem = schemaProblems(toolSignature(tool).parameters, args);
  if (problem) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `arguments for tool "${step.tool}" do not fit its schema: ${problem}`, { hint: 'fix the args of the step' });
  const result: AgentToolResult = await tool.execute(args, {
    toolCallId: `flow-${step.id}`,
    signal: options.signal ?? new AbortController().signal,
    onUpdate: () => undefined,
    toolCtx: {},
  });
  const text = result.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
  if (result.isError === true) throw new XdogError(ErrorCodes.TOOL_FAILED, `tool "${step.tool}" returned an error: ${text}`, { hint: 'fix the tool arguments or its environment' });
  if (!step.parsesJson) return text;
  try {
    return JSON.parse(text);
  } catch {
    throw new XdogError(ErrorCodes.FLOW_STEP_FAILED, `tool "${step.tool}" did not return JSON, but the step declares an output schema`, {
      hint: 'drop the output schema to take the text as it is',
    });
  }
}

async function runAgentStep(step: AgentStepPlan, tools: Map<string, AgentTool>, resolve: (ref: FlowReference) => unknown, options: FlowRunOptions): Promise<unknown> {
  const runtime = options.runtime;
  if (!runtime) {
    throw new XdogError(ErrorCodes.MODEL_UNKNOWN, 'this flow has agent steps but no model was given', { hint: 'pass --model provider/model or set "model:" in the config file' });
  }
  const allowed = step.tools.map((name) => {
    const tool = tools.get(name);
    if (!tool) throw new XdogError(ErrorCodes.NOT_FOUND, `tool "${name}" is not available to this run`, { hint: `available tools: ${[...tools.keys()].join(', ') || 'none'}` });
    return tool;
  });
  const prompt = renderText(step.prompt, resolve);
  const system = step.system === undefined ? AGENT_SYSTEM_PROMPT : `${renderText(step.system, resolve)}\n\n${AGENT_SYSTEM_PROMPT}`;
  const result = structuredResult(step.output);
  const agent = new Agent(runtime.streamFn, { model: runtime.model, systemPrompt: system }, { tools: [...allowed, result.tool], toolCtx: result.toolCtx });
  const abort = () => agent.abort();
  options.signal?.addEventListener('abort', abort);
  try {
    const stream = agent.prompt(`${prompt}\n\nSubmit the result with ${SUBMIT_RESULT_NAME}; it must match this JSON Schema:\n${JSON.stringify(step.output)}`);
    for await (const _event of stream) {
      // Events are consumed so the run is not held back by the bounded buffer.
    }
    const run = await stream.result();
    if (options.signal?.aborted) throw new XdogError(ErrorCodes.ABORTED, 'the flow run was cancelled', { hint: 'run it again' });
    if (run.status !== 'completed') {
      throw new XdogError(run.status === 'aborted' ? ErrorCodes.ABORTED : ErrorCodes.MODEL_FAILED, `the agent run ended with status "${run.status}"${run.errorMessage ? `: ${run.errorMessage}` : ''}`, {
        hint: 'check the model and its credentials, then run the flow again',
      });
    }
    if (!result.submitted()) {
      throw new XdogError(ErrorCodes.FLOW_STEP_FAILED, `the agent finished without an accepted ${SUBMIT_RESULT_NAME} call`, {
        hint: 'make the prompt ask for the result more plainly, or use a stronger model',
      });
    }
    return result.value();
  } finally {
    options.signal?.removeEventListener('abort', abort);
    await agent.close();
  }
}

/** Renders a template as text (prompts): non-string values become JSON. */
function renderText(template: string, resolve: (ref: FlowReference) => unknown): string {
  const value = renderTemplate(template, resolve);
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (utf8Bytes(text) > LIMITS.flowValueBytes) {
    throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `a rendered prompt is ${utf8Bytes(text)} bytes, over the limit of ${LIMITS.flowValueBytes}`, { hint: 'reference less data in the prompt' });
  }
  return text;
}

function checkSize(what: string, value: unknown): void {
  const bytes = utf8Bytes(JSON.stringify(value) ?? '');
  if (bytes > LIMITS.flowValueBytes) {
    throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `${what} is ${bytes} bytes of JSON, over the limit of ${LIMITS.flowValueBytes}`, { hint: 'pass less data between steps' });
  }
}

/** Follows a reference's path into a value; a missing part is an error naming the reference. */
function lookup(value: unknown, ref: FlowReference): unknown {
  let current = value;
  for (const segment of ref.path) {
    // Own properties only: an inherited member (toString, constructor) is not data.
    if (current !== null && typeof current === 'object' && Object.hasOwn(current, segment)) current = (current as Record<string, unknown>)[segment];
    else {
      throw new XdogError(ErrorCodes.FLOW_STEP_FAILED, `{{ ${ref.text} }} has no value at "${segment}"`, {
        hint: 'mark that property required in the referenced output schema, or reference one that is',
      });
    }
  }
  if (current === undefined) throw new XdogError(ErrorCodes.FLOW_STEP_FAILED, `{{ ${ref.text} }} has no value`, { hint: 'reference an input or an earlier step' });
  return current;
}

