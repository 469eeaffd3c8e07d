/**
 * What model calls cost: a price table for the catalog's models (US dollars
 * per million tokens, as the vendors publish them), overridable per model by
 * a `models:` entry's `price` in the config. The table cannot check itself:
 * each entry names the page it was taken from and the day it was read, and
 * docs/goals.md says how to override a figure that moved. No price known
 * means the cost is unknown (null), never 0.
 */
import type { XdogConfig } from '../config.js';
import type { Usage } from '../agent/messages.js';

/** USD per million tokens of each kind, with where and when the figures were read. */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** The day the figures were read from `source` (YYYY-MM-DD), or "config" for an override. */
  checked: string;
  /** The page the figures come from, or the config key of an override. */
  source: string;
}

const OPENAI = 'https://openai.com/api/pricing';
const ANTHROPIC = 'https://www.anthropic.com/pricing#api';
const GOOGLE = 'https://ai.google.dev/gemini-api/docs/pricing';
/** When these figures were taken from the vendors' pages (offline since; see docs/goals.md). */
const CHECKED = '2025-08-31';

function price(source: string, input: number, output: number, cacheRead: number, cacheWrite = input): ModelPrice {
  return { input, output, cacheRead, cacheWrite, checked: CHECKED, source };
}

/**
 * The catalog's models that bill per token, by "provider/model". Image
 * generators, Copilot (a subscription) and models whose price the pages did
 * not give on the checked day are absent: their cost is unknown.
 */
export const PRICE_TABLE: Readonly<Record<string, ModelPrice>> = Object.freeze({
  'openai/gpt-5': price(OPENAI, 1.25, 10, 0.125),
  'openai/gpt-5-mini': price(OPENAI, 0.25, 2, 0.025),
  'openai/gpt-5-nano': price(OPENAI, 0.05, 0.4, 0.005),
  'openai/gpt-4.1': price(OPENAI, 2, 8, 0.5),
  'openai/gpt-4.1-mini': price(OPENAI, 0.4, 1.6, 0.1),
  'openai/gpt-4o': price(OPENAI, 2.5, 10, 1.25),
  'openai/gpt-4o-mini': price(OPENAI, 0.15, 0.6, 0.075),
  'openai/o3': price(OPENAI, 2, 8, 0.5),
  'openai/o4-mini': price(OPENAI, 1.1, 4.4, 0.275),
  // Anthropic bills a cache write at 1.25 times the input price (5-minute cache).
  'anthropic/claude-opus-4-6': price(ANTHROPIC, 15, 75, 1.5, 18.75),
  'anthropic/claude-sonnet-4-6': price(ANTHROPIC, 3, 15, 0.3, 3.75),
  'anthropic/claude-haiku-4-5': price(ANTHROPIC, 1, 5, 0.1, 1.25),
  // Gemini 2.5 Pro: the price for prompts up to 200k tokens.
  'google/gemini-2.5-pro': price(GOOGLE, 1.25, 10, 0.31),
  'google/gemini-2.5-flash': price(GOOGLE, 0.3, 2.5, 0.075),
  'google/gemini-2.5-flash-lite': price(GOOGLE, 0.1, 0.4, 0.025),
});

/** The price of `model` ("provider/model"): the config's `models:` entry first, then the table; undefined when unknown. */
export function priceOf(config: XdogConfig, model: string): ModelPrice | undefined {
  const entry = config.models?.find((candidate) => candidate.id === model);
  if (entry?.price) {
    const { input, output } = entry.price;
    return { input, output, cacheRead: entry.price.cache_read ?? input, cacheWrite: entry.price.cache_write ?? input, checked: 'config', source: `models[${model}].price` };
  }
  return PRICE_TABLE[model];
}

/** What one call cost in US dollars, or null when the price is unknown (never 0 for "unknown"). */
export function costOf(price: ModelPrice | undefined, usage: Usage): number | null {
  if (!price) return null;
  const perMillion = usage.input * price.input + usage.output * price.output + (usage.cacheRead ?? 0) * price.cacheRead + (usage.cacheWrite ?? 0) * price.cacheWrite;
  // Rounded to a billionth of a dollar: sums of many rows stay exact enough and free of float noise.
  return Math.round(perMillion * 1000) / 1e9;
}

/** The cost function of a kernel's config: `cost(model, usage)`. */
export function costFunction(config: XdogConfig): (model: string, usage: Usage) => number | null {
  return (model, usage) => costOf(priceOf(config, model), usage);
}
