import { describe, expect, it } from 'vitest';
import { MODEL_CATALOG, PRICE_TABLE, costOf, parseConfig, priceOf, type XdogConfig } from '../../../core/index.js';

const usage = (input: number, output: number, cacheRead = 0, cacheWrite = 0) => ({ input, output, cacheRead, cacheWrite });

describe('model prices', () => {
  it('prices only models the catalog knows, each with the day it was checked and its page', () => {
    for (const [model, price] of Object.entries(PRICE_TABLE)) {
      const [provider, id] = [model.slice(0, model.indexOf('/')), model.slice(model.indexOf('/') + 1)];
      expect(MODEL_CATALOG[provider]?.some((entry) => entry.id === id), model).toBe(true);
      expect(price.checked).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(price.source).toMatch(/^https:\/\//);
    }
  });

  it('computes a call exactly from the four token kinds; an unknown price is null, never 0', () => {
    const config: XdogConfig = parseConfig('models:\n  - { id: faux/demo, price: { input: 2, output: 10, cache_read: 0.5 } }\n');
    const price = priceOf(config, 'faux/demo');
    expect(price).toMatchObject({ input: 2, output: 10, cacheRead: 0.5, cacheWrite: 2, checked: 'config' });
    expect(costOf(price, usage(600, 400, 1000, 100))).toBe(0.0059);
    expect(costOf(priceOf(config, 'faux/other'), usage(600, 400))).toBeNull();
    expect(costOf(priceOf({}, 'anthropic/claude-sonnet-4-6'), usage(1_000_000, 0))).toBe(3);
  });

  it('a config price overrides the table; a bad price is a config error naming the key', () => {
    const config = parseConfig('models:\n  - { id: openai/gpt-4o, price: { input: 1, output: 1 } }\n');
    expect(priceOf(config, 'openai/gpt-4o')).toMatchObject({ input: 1, output: 1, source: 'models[openai/gpt-4o].price' });
    expect(() => parseConfig('models:\n  - { id: openai/gpt-4o, price: { input: -1, output: 1 } }\n')).toThrow(/models\.0\.price\.input/);
  });
});
