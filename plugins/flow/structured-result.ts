/**
 * How an agent step hands back its typed output: the `submit_result` tool
 * (plugin submit-result) with the step's schema and a sink in the tool
 * context. This module only wires the two together for one step.
 */
import type { AgentTool, JsonSchema } from '../../core/index.js';
import { createSubmitResultTool } from '../submit-result/index.js';

/** The result tool's name, for prompts. */
export const SUBMIT_RESULT_NAME = 'submit_result';

/** One step's result channel. */
export interface StructuredResult {
  tool: AgentTool;
  /** The agent's tool context: the schema and the sink (a nested object, as dispatch copies the context shallowly). */
  toolCtx: Record<string, unknown>;
  /** Whether an accepted result is in the sink. */
  submitted(): boolean;
  /** The last accepted result. */
  value(): unknown;
}

/** A fresh submit_result tool and sink for one agent step. */
export function structuredResult(schema: JsonSchema): StructuredResult {
  const sink: { result?: unknown } = {};
  return {
    tool: createSubmitResultTool(),
    toolCtx: { result_schema: schema, result_sink: sink },
    submitted: () => 'result' in sink,
    value: () => sink.result,
  };
}
