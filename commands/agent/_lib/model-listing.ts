/** The models a registry serves, as `xdog agent models` and the chat's `/model` list them. */
import type { ModelInfo, ModelRegistry } from '../../../core/index.js';

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

/** What the registry lists (of one provider, or all), plus one listing per provider that takes any id. */
export function listModels(registry: ModelRegistry, provider?: string): ModelListing[] {
  const providers = provider === undefined ? registry.providers() : [provider];
  // models() validates the provider name; providers that take any id get one listing saying so.
  const listed = registry.models(provider).map(toListing);
  const open = providers.filter((name) => registry.acceptsAnyModel?.(name)).map((name): ModelListing => ({ model: `${name}/*`, provider: name, id: '*', anyModel: true }));
  return [...listed, ...open].sort((a, b) => a.provider.localeCompare(b.provider));
}

/** Aligned text lines, one per listing; `current` marks the model in use with `*`. */
export function modelLines(listings: readonly ModelListing[], current?: string): string[] {
  const rows = listings.map((item) => [
    ...(current === undefined ? [] : [item.model === current ? '*' : ' ']),
    ...(item.anyModel
      ? [`${item.provider}/<any model id>`, '-', '-', '', 'configured: takes any model id; declare its models under models: for their limits']
      : [
          item.model,
          item.contextWindow ? `${Math.round(item.contextWindow / 1000)}k ctx` : '-',
          item.maxOutputTokens ? `${Math.round(item.maxOutputTokens / 1000)}k out` : '-',
          (item.input ?? ['text']).join('+'),
          item.reasoningEfforts?.length ? `thinking: ${item.reasoningEfforts.join('/')}` : '',
        ]),
  ]);
  if (rows.length === 0) return [];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd());
}
