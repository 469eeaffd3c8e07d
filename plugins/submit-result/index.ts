/**
 * `submit_result`: an opt-in tool through which a model hands back a
 * structured result. The host passes the schema and a sink in the agent's
 * tool context: `{ result_schema, result_sink: {} }`. The sink must be a
 * nested object because each call gets a shallow copy of the context.
 *
 * Contract: `result_sink.result` is written only after validation; a later
 * valid call replaces it; an invalid call never erases it and answers
 * `Error: ...` so the model can fix and resubmit. Acceptance does not stop
 * the agent. The old Flow keys `flow_output_schema` / `flow_result_sink`
 * are rejected.
 */
import { definePlugin, type AgentTool } from '../../core/index.js';
import { checkResult } from './schema.js';

export { checkResult, type ResultCheck } from './schema.js';

const RETIRED_KEYS = ['flow_output_schema', 'flow_result_sink'] as const;

/** What submit_result reports to the host. */
export interface SubmitResultDetails {
  accepted: boolean;
  /** True when the result was kept in `result_sink`. */
  stored: boolean;
}

const PARAMETERS = {
  type: 'object',
  properties: {
    result: { description: 'The result value. It must match the result format the task describes (often an object).' },
  },
  required: ['result'],
  additionalProperties: false,
};

function reject(text: string): { content: [{ type: 'text'; text: string }]; isError: true; details: SubmitResultDetails } {
  return { content: [{ type: 'text', text: `Error: ${text}` }], isError: true, details: { accepted: false, stored: false } };
}

/** A fresh submit_result tool. Register it only where a structured result is wanted. */
export function createSubmitResultTool(): AgentTool<{ result: unknown }, SubmitResultDetails> {
  return {
    name: 'submit_result',
    description:
      'Submit the final structured result of your task as {"result": <value>}. The value is checked against the expected format; ' +
      'if it does not match you get an error starting with "Error:" that says why, and you should fix the value and call submit_result again. ' +
      'Call it once the result is complete; you may keep working afterwards.',
    parameters: PARAMETERS,
    async execute(args, { toolCtx }) {
      const retired = RETIRED_KEYS.filter((key) => key in toolCtx);
      if (retired.length) {
        return reject(`tool_ctx uses the retired key${retired.length > 1 ? 's' : ''} ${retired.join(', ')}; the host must pass result_schema and result_sink instead`);
      }
      const sink = toolCtx.result_sink;
      if (sink !== undefined && (typeof sink !== 'object' || sink === null || Array.isArray(sink))) {
        return reject('tool_ctx.result_sink must be an object; the host must fix the tool context');
      }
      let check;
      try {
        check = checkResult(toolCtx.result_schema, args.result);
      } catch (error) {
        return reject(`the host's result_schema is unusable: ${(error as Error).message}`);
      }
      if (!check.ok) return reject(`the result does not match the expected format: ${check.error}. Fix it and call submit_result again.`);
      if (sink) (sink as Record<string, unknown>).result = structuredClone(args.result);
      return { content: [{ type: 'text', text: 'Result accepted.' }], details: { accepted: true, stored: Boolean(sink) } };
    },
  };
}

/** A library plugin: it contributes no tool by default (submit_result is opt-in per agent). */
export default definePlugin({ name: 'submit-result' });
