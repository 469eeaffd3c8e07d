import { Args, Flags } from '@oclif/core';
import { ErrorCodes, XdogError, bootKernel, modelRegistryFor } from '../../core/index.js';
import { compileFlowFile, flowRuntimeOf, flowToolsOf, parseInputPairs, runFlow, toolSignature, type FlowEvent, type FlowRunResult } from '../../plugins/flow/index.js';
import { XdogCommand } from '../base-command.js';

export default class FlowRun extends XdogCommand {
  static override summary = 'Run a Flow workflow and print its typed result';
  static override description =
    'Compiles the file, runs its steps in order with the configured model and the installed tools, and validates every step output. ' +
    'A failed step stops the run: its error and the outputs so far are printed and the command exits 1. ' +
    'A flow is trusted code: it does not go through any agent approval hooks.';
  static override enableJsonFlag = true;
  static override args = { file: Args.string({ ignoreStdin: true, description: 'the workflow YAML file', required: true }) };
  static override flags = {
    input: Flags.string({ char: 'i', description: 'an input as name=value (JSON for non-string inputs); repeatable', multiple: true, default: [] }),
    model: Flags.string({ char: 'm', description: 'model for agent steps as provider/model (default: the config "model")' }),
  };
  static override examples = ['<%= config.bin %> flow run docs/examples/flows/topic-digest.yaml --input topic=tides --model openai/gpt-5.1'];

  async run(): Promise<FlowRunResult> {
    const { args, flags } = await this.parse(FlowRun);
    const kernel = await bootKernel({ config: (await this.loadConfig(flags)).config });
    let result: FlowRunResult;
    try {
      const tools = flowToolsOf(kernel);
      const plan = compileFlowFile(args.file, { tools: tools.map(toolSignature) });
      const inputs = parseInputPairs(plan, flags.input);
      const needsModel = plan.steps.some((step) => step.kind === 'agent');
      const runtime = needsModel ? flowRuntimeOf(kernel, flags.model) : undefined;
      if (needsModel && !runtime) {
        throw new XdogError(ErrorCodes.MODEL_UNKNOWN, `flow "${plan.flow}" has agent steps but no model is set`, { hint: 'pass --model provider/model or set "model:" in the config file' });
      }
      // A missing key fails now, before any step has run (and before a shell step has changed anything).
      if (runtime) await modelRegistryFor(kernel).checkCredentials?.(runtime.model);
      // Ctrl-C cancels the running step cooperatively; the run then reports it as failed with the outputs so far.
      const controller = new AbortController();
      const onSigint = (): void => controller.abort();
      process.once('SIGINT', onSigint);
      try {
        result = await runFlow(plan, inputs, { runtime, tools, signal: controller.signal, onEvent: (event) => this.progress(event) });
      } finally {
        process.removeListener('SIGINT', onSigint);
      }
    } finally {
      await kernel.close();
    }
    if (result.status === 'failed') {
      if (this.jsonEnabled()) this.logJson(result);
      else {
        this.note(`xdog: ${result.error.message} [${result.error.code}]${result.error.hint ? ` (${result.error.hint})` : ''}`);
        this.note(`outputs so far: ${JSON.stringify(result.steps, null, 2)}`);
      }
      this.exit(1);
    }
    if (!this.jsonEnabled()) this.log(JSON.stringify(result.output, null, 2));
    return result;
  }

  /** Step progress goes to stderr so stdout holds only the result. */
  private progress(event: FlowEvent): void {
    if (this.jsonEnabled()) return;
    if (event.type === 'step_start') this.note(`step ${event.step} (${event.kind})...`);
    else if (event.type === 'step_end') this.note(`step ${event.step} done`);
  }
}
