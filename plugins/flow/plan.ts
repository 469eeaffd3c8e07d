/**
 * The compiled form of a Flow workflow: plain JSON that `flow compile`
 * prints and `runFlow` executes. Templates stay strings; the compiler has
 * already checked every reference in them.
 */
import type { JsonSchema } from '../../core/index.js';

/** The plan format tag. */
export const FLOW_PLAN_FORMAT = 'xdog.flow.plan/v1';

/** An agent step: a fresh agent answers the prompt and submits `output` through submit_result. */
export interface AgentStepPlan {
  id: string;
  kind: 'agent';
  /** Template for the user prompt. */
  prompt: string;
  /** Template for an optional system prompt. */
  system?: string;
  /** Tools the step's agent may call besides submit_result. */
  tools: string[];
  /** JSON Schema the submitted result must satisfy. */
  output: JsonSchema;
  /** Line of the step in the source file. */
  line: number;
}

/** A tool step: one call of a named tool with templated arguments. */
export interface ToolStepPlan {
  id: string;
  kind: 'tool';
  tool: string;
  /** Arguments; every string in them is a template. */
  args: Record<string, unknown>;
  /** With a schema the tool's text is parsed as JSON and validated; without one the output is that text. */
  output: JsonSchema;
  /** Whether `output` was declared (else it is the implied `{type: string}`). */
  parsesJson: boolean;
  line: number;
}

export type StepPlan = AgentStepPlan | ToolStepPlan;

/** A compiled workflow. */
export interface FlowPlan {
  format: typeof FLOW_PLAN_FORMAT;
  flow: string;
  description?: string;
  /** The source file the plan was compiled from. */
  source: string;
  /** Input name → JSON Schema (may carry `default`). */
  inputs: Record<string, JsonSchema>;
  steps: StepPlan[];
  /** Result field → template, and the result's schema derived from the references. */
  output: { mapping: Record<string, string>; schema: JsonSchema };
}
