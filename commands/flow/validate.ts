import { Args } from '@oclif/core';
import { bootKernel } from '../../core/index.js';
import { compileFlowFile, flowToolsOf, toolSignature } from '../../plugins/flow/index.js';
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
  static override args = { file: Args.string({ description: 'the workflow YAML file', required: true }) };
  static override examples = ['<%= config.bin %> flow validate docs/examples/flows/topic-digest.yaml'];

  async run(): Promise<FlowValidation> {
    const { args, flags } = await this.parse(FlowValidate);
    const kernel = await bootKernel({ config: this.loadConfig(flags).config });
    try {
      const plan = compileFlowFile(args.file, { tools: flowToolsOf(kernel).map(toolSignature) });
      const result = { file: args.file, flow: plan.flow, steps: plan.steps.length, inputs: Object.keys(plan.inputs) };
      if (!this.jsonEnabled()) this.log(`${args.file}: valid (flow "${plan.flow}", ${plan.steps.length} steps)`);
      return result;
    } finally {
      await kernel.close();
    }
  }
}
