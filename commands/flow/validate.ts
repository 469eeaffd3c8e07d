import { Args } from '@oclif/core';
import { XdogError, bootKernel } from '../../core/index.js';
import { compileFlowFile, flowToolsOf, formatProblem, toolSignature, type FlowPlan, type FlowProblem } from '../../plugins/flow/index.js';
import { XdogCommand } from '../base-command.js';

/** What `xdog flow validate` reports. */
export interface FlowValidation {
  file: string;
  flow: string;
  steps: number;
  inputs: string[];
}

export default class FlowValidate extends XdogCommand {
  static override summary = 'Check a Flow workflow file: shape, ids, references, types and tools';
  static override description = 'Prints "valid" or every problem with its file, line and fix (see docs/flow.md).';
  static override enableJsonFlag = true;
  static override args = { file: Args.string({ ignoreStdin: true, description: 'the workflow YAML file', required: true }) };
  static override examples = ['<%= config.bin %> flow validate docs/examples/flows/topic-digest.yaml'];

  async run(): Promise<FlowValidation> {
    const { args, flags } = await this.parse(FlowValidate);
    const kernel = await bootKernel({ config: (await this.loadConfig(flags)).config });
    try {
      let plan: FlowPlan;
      try {
        plan = compileFlowFile(args.file, { tools: flowToolsOf(kernel).map(toolSignature) });
      } catch (error) {
        // People get one problem per line; --json keeps the one-line error object.
        if (this.jsonEnabled() || !XdogError.is(error, 'FLOW_INVALID')) throw error;
        for (const problem of error.details!.problems as FlowProblem[]) this.note(formatProblem(problem));
        this.exit(1);
      }
      const result = { file: args.file, flow: plan.flow, steps: plan.steps.length, inputs: Object.keys(plan.inputs) };
      if (!this.jsonEnabled()) this.log(`${args.file}: valid (flow "${plan.flow}", ${plan.steps.length} steps)`);
      return result;
    } finally {
      await kernel.close();
    }
  }
}
