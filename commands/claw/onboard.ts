import fs from 'node:fs';
import path from 'node:path';
import { Flags } from '@oclif/core';
import { bootKernel, discoverPlugins, modelRegistryFor, type ModelInfo, type XdogConfig } from '../../core/index.js';
import { configFilePath } from '../../core/paths.js';
import { XdogCommand } from '../base-command.js';
import { writeGroup, type GroupWriteResult } from './_lib/config-writer.js';
import { collectAnswers } from './_lib/onboard.js';

export default class ClawOnboard extends XdogCommand {
  static override summary = 'Add or replace a claw group in the config file: model, tools, workspace (a wizard on a terminal)';
  static override description = `On a terminal it asks for what the flags leave out: the group name (default main), the workspace, the model (picked explicitly from the list xdog agent models shows; there is no default), a thinking level when the model has them, and the tools (names or numbers separated by commas, or all / none). Enabling generate_image asks for claw.image_model among the models whose metadata says they generate images (only those are offered).
Without a terminal, --model, --workspace and --tools are required (and --image-model with generate_image, unless claw.image_model is already set). Comments and every other key and group of the config file are kept; the first group becomes claw.default_group. Restart the gateway to load the change.`;
  static override enableJsonFlag = true;
  static override flags = {
    group: Flags.string({ char: 'g', description: 'the group name (default: main)' }),
    workspace: Flags.string({ description: 'the directory its tools work in' }),
    model: Flags.string({ description: 'provider/model, or its number in xdog agent models' }),
    tools: Flags.string({ description: 'tool names or numbers separated by commas, or all, or none' }),
    thinking: Flags.string({ description: 'reasoning level new sessions start with (one the model declares)' }),
    'image-model': Flags.string({ description: 'claw.image_model for generate_image: provider/model of a model that generates images, or its number in the image-model list' }),
    yes: Flags.boolean({ char: 'y', description: 'write without asking, and replace a group of the same name' }),
  };
  static override examples = [
    '<%= config.bin %> claw onboard',
    '<%= config.bin %> claw onboard --group main --workspace ~/work --model anthropic/claude-sonnet-4-6 --tools read,ls,grep,find',
    '<%= config.bin %> claw onboard --config ./team.yaml --group review --workspace . --model openai/gpt-5.1 --thinking low --tools none --yes',
    '<%= config.bin %> claw onboard --group design --workspace ~/site --model openai/gpt-5.1 --tools read,write,generate_image --image-model openai/gpt-image-1',
  ];

  async run(): Promise<GroupWriteResult> {
    const { flags } = await this.parse(ClawOnboard);
    const file = path.resolve(configFilePath(flags.config));
    // An invalid file is refused before any question; a missing one is created.
    const config: XdogConfig = fs.existsSync(file) ? (await this.loadConfig({ config: file })).config : {};
    const tools = [...new Set(discoverPlugins().flatMap((plugin) => plugin.provides.tools))];
    const kernel = await bootKernel({ config, filter: (plugin) => plugin.provides.providers.length > 0 });
    let answers;
    try {
      const registry = modelRegistryFor(kernel);
      const isImageModel = (info: ModelInfo) => info.output?.includes('image') === true;
      answers = await collectAnswers(flags, {
        interactive: Boolean(process.stdin.isTTY && process.stdout.isTTY) && !this.jsonEnabled(),
        // A group's model chats and calls tools: image generators (claw.image_model) are not offered here.
        models: registry.models().filter((info) => !isImageModel(info)).map((info) => `${info.provider}/${info.id}`),
        // claw.image_model: only models whose metadata says they generate images (reading images is not enough).
        imageModels: registry.models().filter(isImageModel).map((info) => `${info.provider}/${info.id}`),
        ...(config.claw?.image_model ? { currentImageModel: config.claw.image_model } : {}),
        tools,
        resolve: (model) => registry.resolve(model),
        hasGroup: (name) => config.claw?.groups?.[name] !== undefined,
        print: (text) => void process.stderr.write(text),
      });
    } finally {
      await kernel.close();
    }
    const result = await writeGroup({ file, name: answers.name, group: answers.group, ...(answers.imageModel ? { imageModel: answers.imageModel } : {}) });
    if (!this.jsonEnabled()) {
      this.log(`${result.replaced ? 'replaced' : 'added'} group ${result.group} in ${result.file}${result.madeDefault ? ' (the default group)' : ''}`);
      if (result.imageModel) this.log(`claw.image_model is ${result.imageModel}`);
      this.log('start the gateway with: xdog claw gateway start (restart it if it runs, to load the change)');
    }
    return result;
  }
}
