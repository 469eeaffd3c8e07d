/**
 * Model metadata: a maintained catalog of well-known models, plus the
 * `models:` entries of the config file for everything else (local servers,
 * new releases). The catalog is metadata only; it never makes a model
 * available by itself, and an entry is never used for another provider.
 */
import type { XdogConfig } from '../config.js';
import type { ModelInfo } from './types.js';

type Entry = Omit<ModelInfo, 'provider'>;

const IMAGE_LIMITS = { maxCount: 20, maxBytes: 5 * 1024 * 1024, mimeTypes: ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] };
const OPENAI_EFFORTS = ['minimal', 'low', 'medium', 'high'];
const ANTHROPIC_EFFORTS = ['low', 'medium', 'high'];
const GOOGLE_EFFORTS = ['low', 'medium', 'high'];

function text(id: string, contextWindow: number, maxOutputTokens: number, extra: Partial<Entry> = {}): Entry {
  return { id, contextWindow, maxOutputTokens, input: ['text'], toolSupport: true, ...extra };
}
function vision(id: string, contextWindow: number, maxOutputTokens: number, extra: Partial<Entry> = {}): Entry {
  return text(id, contextWindow, maxOutputTokens, { input: ['text', 'image'], images: IMAGE_LIMITS, ...extra });
}

/** A model that generates images (from a prompt and optional reference images); it takes no tools. */
function imageGenerator(id: string, extra: Partial<Entry> = {}): Entry {
  return { id, input: ['text', 'image'], output: ['image'], images: IMAGE_LIMITS, toolSupport: false, ...extra };
}

/**
 * Known models by provider id, with the vendors' published limits. A config
 * `models:` entry with the same id overrides an entry here.
 */
export const MODEL_CATALOG: Readonly<Record<string, readonly Entry[]>> = Object.freeze({
  openai: [
    vision('gpt-5.4', 400_000, 128_000, { reasoningEfforts: OPENAI_EFFORTS }),
    vision('gpt-5.4-mini', 400_000, 128_000, { reasoningEfforts: OPENAI_EFFORTS }),
    vision('gpt-5.2', 400_000, 128_000, { reasoningEfforts: OPENAI_EFFORTS }),
    vision('gpt-5.1', 400_000, 128_000, { reasoningEfforts: OPENAI_EFFORTS }),
    vision('gpt-5', 400_000, 128_000, { reasoningEfforts: OPENAI_EFFORTS }),
    vision('gpt-5-mini', 400_000, 128_000, { reasoningEfforts: OPENAI_EFFORTS }),
    vision('gpt-5-nano', 400_000, 128_000, { reasoningEfforts: OPENAI_EFFORTS }),
    vision('gpt-4.1', 1_047_576, 32_768),
    vision('gpt-4.1-mini', 1_047_576, 32_768),
    vision('gpt-4o', 128_000, 16_384),
    vision('gpt-4o-mini', 128_000, 16_384),
    vision('o3', 200_000, 100_000, { reasoningEfforts: ['low', 'medium', 'high'] }),
    vision('o4-mini', 200_000, 100_000, { reasoningEfforts: ['low', 'medium', 'high'] }),
    imageGenerator('gpt-image-1'),
    imageGenerator('gpt-image-1-mini'),
    imageGenerator('gpt-image-1.5'),
    imageGenerator('gpt-image-2'),
  ],
  anthropic: [
    vision('claude-opus-5-5', 200_000, 64_000, { reasoningEfforts: ANTHROPIC_EFFORTS }),
    vision('claude-sonnet-5-5', 200_000, 64_000, { reasoningEfforts: ANTHROPIC_EFFORTS }),
    vision('claude-haiku-5-5', 200_000, 64_000, { reasoningEfforts: ANTHROPIC_EFFORTS }),
    vision('claude-opus-4-6', 200_000, 64_000, { reasoningEfforts: ANTHROPIC_EFFORTS }),
    vision('claude-sonnet-4-6', 200_000, 64_000, { reasoningEfforts: ANTHROPIC_EFFORTS }),
    vision('claude-haiku-4-5', 200_000, 64_000, { reasoningEfforts: ANTHROPIC_EFFORTS }),
  ],
  copilot: [
    vision('gpt-4.1', 128_000, 16_384),
    vision('gpt-4o', 128_000, 4_096),
    vision('gpt-5-mini', 128_000, 64_000, { reasoningEfforts: OPENAI_EFFORTS }),
    vision('gpt-5.1', 128_000, 64_000, { reasoningEfforts: OPENAI_EFFORTS }),
    vision('claude-sonnet-4.5', 128_000, 16_000),
    vision('claude-haiku-4.5', 128_000, 16_000),
    vision('gemini-2.5-pro', 128_000, 64_000),
  ],
  google: [
    vision('gemini-2.5-pro', 1_048_576, 65_536, { reasoningEfforts: GOOGLE_EFFORTS }),
    vision('gemini-2.5-flash', 1_048_576, 65_536, { reasoningEfforts: GOOGLE_EFFORTS }),
    vision('gemini-2.5-flash-lite', 1_048_576, 65_536, { reasoningEfforts: GOOGLE_EFFORTS }),
    imageGenerator('gemini-2.5-flash-image', { output: ['text', 'image'] }),
  ],
});

/** The catalog's models for one provider id, tagged with that provider. */
export function catalogModels(provider: string, catalogKey = provider): ModelInfo[] {
  return (MODEL_CATALOG[catalogKey] ?? []).map((entry) => ({ ...entry, provider }));
}

/** The config file's `models:` entries for one provider, as ModelInfo. */
export function configModels(config: XdogConfig, provider: string): ModelInfo[] {
  return (config.models ?? [])
    .filter((entry) => entry.id.slice(0, entry.id.indexOf('/')) === provider)
    // An entry that only sets a price (core/model/prices.ts) leaves the model's metadata as it is.
    .filter((entry) => Object.keys(entry).some((key) => key !== 'id' && key !== 'price'))
    .map((entry) => {
      const info: ModelInfo = { id: entry.id.slice(entry.id.indexOf('/') + 1), provider };
      if (entry.name !== undefined) info.name = entry.name;
      if (entry.context_window !== undefined) info.contextWindow = entry.context_window;
      if (entry.max_prompt_tokens !== undefined) info.maxPromptTokens = entry.max_prompt_tokens;
      if (entry.max_output !== undefined) info.maxOutputTokens = entry.max_output;
      if (entry.input !== undefined) info.input = entry.input;
      if (entry.input?.includes('image')) info.images = IMAGE_LIMITS;
      if (entry.output !== undefined) info.output = entry.output;
      if (entry.reasoning !== undefined) info.reasoningEfforts = entry.reasoning;
      if (entry.tools !== undefined) info.toolSupport = entry.tools;
      return info;
    });
}

/**
 * One provider's model list: config entries first (they override a catalog
 * entry with the same id), then the catalog's.
 */
export function mergeModels(configured: ModelInfo[], catalog: ModelInfo[]): ModelInfo[] {
  const seen = new Set(configured.map((model) => model.id));
  return [...configured, ...catalog.filter((model) => !seen.has(model.id))];
}
