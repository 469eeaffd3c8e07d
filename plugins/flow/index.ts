/**
 * The `flow` plugin: Flow, xdog's typed workflow format and compiler, as a
 * capability (the `flow` tool plus the packaged `flow` skill). The compiler,
 * runner and plan types are exported for hosts and the `xdog flow` commands.
 */
import { CapabilityContribution, ContainerModule, definePlugin } from '../../core/index.js';
import { flowCapability } from './capability.js';

export { flowCapability } from './capability.js';
export { compileFlow, compileFlowFile, formatProblem, toolSignature, type CompileOptions, type FlowProblem, type ToolSignature } from './compile.js';
export { createFlowTool, FLOW_TOOL_NAME, type FlowToolArgs, type FlowToolOptions } from './flow-tool.js';
export { parseInputPairs, resolveInputs } from './inputs.js';
export { FLOW_PLAN_FORMAT, type AgentStepPlan, type FlowPlan, type StepPlan, type ToolStepPlan } from './plan.js';
export { runFlow, type FlowEvent, type FlowRunOptions, type FlowRunResult } from './run.js';
export { flowRuntimeOf, flowToolsOf } from './host.js';

export default definePlugin({
  name: 'flow',
  provides: { capabilities: ['flow'], tools: ['flow'], skills: ['flow'] },
  module: new ContainerModule(({ bind }) => {
    bind(CapabilityContribution).toConstantValue(flowCapability);
  }),
});
