import { Args } from '@oclif/core';
import { XdogCommand } from '../base-command.js';
import { listModels, modelLines, type ModelListing } from './_lib/model-listing.js';
import { withProviders } from './_lib/providers.js';

export type { ModelListing };

export default class AgentModels extends XdogCommand {
  static override summary = 'List the models of the active providers (from the catalog and the config file)';
  static override enableJsonFlag = true;
  static override args = {
    provider: Args.string({ ignoreStdin: true, description: 'only this provider (e.g. openai, anthropic, copilot, or one from the config)' }),
  };
  static override examples = ['<%= config.bin %> agent models', '<%= config.bin %> agent models anthropic --json'];

  async run(): Promise<ModelListing[]> {
    const { args, flags } = await this.parse(AgentModels);
    const listings = await withProviders(flags.config, (registry) => listModels(registry, args.provider));
    if (!this.jsonEnabled()) this.render(listings);
    return listings;
  }

  private render(listings: ModelListing[]): void {
    if (listings.length === 0) this.log('no models listed');
    for (const line of modelLines(listings)) this.log(line);
  }
}
