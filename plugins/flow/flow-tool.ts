/**
 * The `flow` tool: lets an agent validate, compile and run a workflow file.
 * A run is trusted code: its steps call tools directly and use fresh agents,
 * so the calling agent's approval hooks do not reach inside it. Hosts that
 * need a gate put it on the `flow` tool call itself (beforeToolCall).
 */
import path from 'node:path';
import { ErrorCodes, XdogError, type AgentTool, type CapabilityRuntime } from '../../core/index.js';
import { compileFlow, compileFlowFile, toolSignature } from './compile.js';
import type { FlowPlan } from './plan.js';
import { runFlow, type FlowRunResult } from './run.js';

/** The tool's name. */
export const FLOW_TOOL_NAME = 'flow';

/** Arguments the model sends. */
export interface FlowToolArgs {
  action: 'validate' | 'compile' | 'run';
  /** A workflow file, relative to the host's working directory. */
  file?: string;
  /** Workflow YAML given inline instead of a file. */
  source?: string;
  /** Input values for `run`. */
  inputs?: Record<string, unknown>;
}

/** What the tool needs from its host. */
export interface FlowToolOptions {
  /** Relative files resolve against it. */
  cwd: string;
  /** The model for agent steps; without it `run` of a flow with agent steps fails clearly. */
  runtime?: CapabilityRuntime;
  /** The tools flows may use, read at each call. */
  tools(): readonly AgentTool[];
}

/** Creates the `flow` tool. */
export function createFlowTool(options: FlowToolOptions): AgentTool<FlowToolArgs> {
  const compile = (args: FlowToolArgs): FlowPlan => {
    const tools = options.tools().map(toolSignature);
    if (args.source !== undefined && args.file === undefined) return compileFlow(args.source, { file: '<source>', tools });
    if (args.file !== undefined && args.source === undefined) return compileFlowFile(path.resolve(options.cwd, args.file), { tools });
    throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'give exactly one of "file" and "source"', { hint: 'name a workflow file, or pass its YAML as source' });
  };
  return {
    name: FLOW_TOOL_NAME,
    description:
      'Validate, compile or run a Flow workflow (a YAML file with typed inputs, ordered agent/tool steps and an output mapping). ' +
      'Use "validate" to check a file, "compile" to see its JSON plan, "run" with inputs to execute it and get its typed result. ' +
      'Load the "flow" skill for the format.',
    parameters: {
      type: 'object',
      properties: {
        action: { type: 'string', enum: ['validate', 'compile', 'run'] },
        file: { type: 'string', description: 'workflow file, relative to the working directory' },
        source: { type: 'string', description: 'workflow YAML, instead of a file' },
        inputs: { type: 'object', description: 'input values for "run"', additionalProperties: true },
      },
      required: ['action'],
      additionalProperties: false,
    },
    async execute(args, context) {
      const plan = compile(args);
      if (args.action === 'validate') {
        return { content: [{ type: 'text', text: `flow "${plan.flow}" is valid: ${plan.steps.length} step(s), inputs: ${Object.keys(plan.inputs).join(', ') || 'none'}` }], details: { plan } };
      }
      if (args.action === 'compile') return { content: [{ type: 'text', text: JSON.stringify(plan, null, 2) }], details: { plan } };
      const result: FlowRunResult = await runFlow(plan, args.inputs ?? {}, { runtime: options.runtime, tools: options.tools(), signal: context.signal });
      return { content: [{ type: 'text', text: JSON.stringify(result, null, 2) }], details: result, isError: result.status === 'failed' };
    },
  };
}
