import { Args } from '@oclif/core';
import type { ModelInfo } from '../../core/index.js';
import { XdogCommand } from '../base-command.js';
import { withProviders } from './_lib/providers.js';

/** One listed model. */
export interface ModelListing {
  model: string;
  provider: string;
  id: string;
  name?: string;
  contextWindow?: number;
  maxOutputTokens?: number;
  input?: string[];
  reasoningEfforts?: string[];
  /** Set on the one listing of a provider that lists no models and takes any id (`id` is then "*"). */
  anyModel?: true;
}

export default class AgentModels extends XdogCommand {
  static override summary = 'List the models of the active providers (from the catalog and the config file)';
  static override enableJsonFlag = true;
  static override args = {
    provider: Args.string({ ignoreStdin: true, description: 'only this provider (e.g. openai, anthropic, copilot, or one from the config)' }),
  };
  static override examples = ['<%= config.bin %> agent models', '<%= config.bin %> agent models anthropic --json'];

  async run(): Promise<ModelListing[]> {
    const { args, flags } = await this.parse(AgentModels);
    const listings = await withProviders(flags.config, (registry) => {
      const providers = args.provider === undefined ? registry.providers() : [args.provider];
      // models() validates the provider name; providers that take any id get one listing saying so.
      const listed = registry.models(args.provider).map(toListing);
      const open = providers.filter((name) => registry.acceptsAnyModel?.(name)).map((name): ModelListing => ({ model: `${name}/*`, provider: name, id: '*', anyModel: true }));
      return [...listed, ...open].sort((a, b) => a.provider.localeCompare(b.provider));
    });
    if (!this.jsonEnabled()) this.render(listings);
    return listings;
  }

  private render(listings: ModelListing[]): void {
    if (listings.length === 0) {
      this.log('no models listed');
      return;
    }
    const rows = listings.map((item) => item.anyModel ? [`${item.provider}/<any model id>`, '-', '-', '', 'configured: takes any model id; declare its models under models: for their limits'] : [
      item.model,
      item.contextWindow ? `${Math.round(item.contextWindow / 1000)}k ctx` : '-',
      item.maxOutputTokens ? `${Math.round(item.maxOutputTokens / 1000)}k out` : '-',
      (item.input ?? ['text']).join('+'),
      item.reasoningEfforts?.length ? `thinking: ${item.reasoningEfforts.join('/')}` : '',
    ]);
    const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
    for (const row of rows) this.log(row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd());
  }
}

function toListing(info: ModelInfo): ModelListing {
  return {
    model: `${info.provider}/${info.id}`,
    provider: info.provider,
    id: info.id,
    ...(info.name ? { name: info.name } : {}),
    ...(info.contextWindow ? { contextWindow: info.contextWindow } : {}),
    ...(info.maxOutputTokens ? { maxOutputTokens: info.maxOutputTokens } : {}),
    ...(info.input ? { input: info.input } : {}),
    ...(info.reasoningEfforts ? { reasoningEfforts: info.reasoningEfforts } : {}),
  };
}
