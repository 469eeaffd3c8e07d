import { Args } from '@oclif/core';
import { bootKernel } from '../../core/index.js';
import { compileFlowFile, flowToolsOf, toolSignature, type FlowPlan } from '../../plugins/flow/index.js';
import { XdogCommand } from '../base-command.js';

export default class FlowCompile extends XdogCommand {
  static override summary = 'Compile a Flow workflow file into its JSON plan';
  static override enableJsonFlag = true;
  static override args = { file: Args.string({ ignoreStdin: true, description: 'the workflow YAML file', required: true }) };
  static override examples = ['<%= config.bin %> flow compile docs/examples/flows/topic-digest.yaml > plan.json'];

  async run(): Promise<FlowPlan> {
    const { args, flags } = await this.parse(FlowCompile);
    const kernel = await bootKernel({ config: (await this.loadConfig(flags)).config });
    try {
      const plan = compileFlowFile(args.file, { tools: flowToolsOf(kernel).map(toolSignature) });
      if (!this.jsonEnabled()) this.log(JSON.stringify(plan, null, 2));
      return plan;
    } finally {
      await kernel.close();
    }
  }
}
