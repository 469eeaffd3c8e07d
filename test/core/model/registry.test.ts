import { describe, expect, it } from 'vitest';
import {
  ContainerModule,
  ModelProviderContribution,
  ModelRegistryImpl,
  XdogError,
  createKernel,
  definePlugin,
  modelRegistryFor,
  zeroUsage,
  type AssistantStreamEvent,
  type ConfigurableModelProvider,
  type ModelInfo,
  type ModelProvider,
  type ModelStreamFn,
} from '../../../core/index.js';

/** A provider that answers with its own name and the model id it received. */
function provider(name: string, ids?: string[]): ModelProvider {
  const stream = async function* (model: string): AsyncIterable<AssistantStreamEvent> {
    yield { type: 'done', message: { role: 'assistant', content: [{ type: 'text', text: `${name}:${model}` }], model, usage: zeroUsage(), stopReason: 'stop', timestamp: 0 } };
  };
  const models = ids ? (): ModelInfo[] => ids.map((id) => ({ id, provider: name, contextWindow: 1000 })) : undefined;
  return { name, stream: Object.assign(stream, { models }) as ModelStreamFn };
}

function errorOf(fn: () => unknown): XdogError {
  try {
    fn();
  } catch (error) {
    if (error instanceof XdogError) return error;
    throw error;
  }
  throw new Error('expected an XdogError');
}

async function textOf(stream: AsyncIterable<AssistantStreamEvent>): Promise<string> {
  let out = '';
  for await (const event of stream) {
    if (event.type === 'done' || event.type === 'error') out = event.message.errorMessage ?? JSON.stringify(event.message.content);
  }
  return out;
}

describe('ModelRegistry', () => {
  const registry = new ModelRegistryImpl([provider('openai', ['gpt-4.1', 'shared']), provider('copilot', ['shared', 'claude']), provider('faux')], {});

  it('routes provider/model to that provider with the bare id', async () => {
    const resolved = registry.resolve('copilot/claude');
    expect(resolved).toMatchObject({ id: 'claude', qualified: 'copilot/claude', listed: true, info: { id: 'claude', provider: 'copilot', contextWindow: 1000 } });
    expect(registry.resolve('faux/anything').listed).toBe(false);
    expect(await textOf(registry.streamFn('copilot/claude', { messages: [], tools: [] }, {}))).toContain('copilot:claude');
  });

  it('accepts a bare id only when exactly one provider offers it', () => {
    expect(registry.resolve('gpt-4.1').qualified).toBe('openai/gpt-4.1');
    const ambiguous = errorOf(() => registry.resolve('shared'));
    expect(ambiguous.code).toBe('MODEL_AMBIGUOUS');
    expect(ambiguous.message).toContain('copilot/shared, openai/shared');
    expect(ambiguous.exitCode).toBe(2);
  });

  it('fails on an unknown model, listing the known ones, and never falls back', () => {
    const unknown = errorOf(() => registry.resolve('openai/gpt-9'));
    expect(unknown.code).toBe('MODEL_UNKNOWN');
    expect(unknown.message).toContain('openai knows: openai/gpt-4.1, openai/shared');
    const bare = errorOf(() => registry.resolve('nothing'));
    expect(bare.message).toContain('known: copilot/shared, copilot/claude, faux/<any>, openai/gpt-4.1, openai/shared');
    const noProvider = errorOf(() => registry.resolve('anthropic/claude'));
    expect(noProvider.message).toContain('no active provider "anthropic"');
    expect(noProvider.hint).toContain('active providers: copilot, faux, openai');
  });

  it('lets an opaque provider (no model list) serve any id', () => {
    expect(registry.resolve('faux/demo')).toMatchObject({ id: 'demo', info: { id: 'demo', provider: 'faux' } });
  });

  it('turns a routing failure into an error event (the stream function never throws)', async () => {
    expect(await textOf(registry.streamFn('openai/gpt-9', { messages: [], tools: [] }, {}))).toContain('unknown model "openai/gpt-9"');
  });

  it('adds config models: metadata, listing and overriding catalog entries', () => {
    const withConfig = new ModelRegistryImpl([provider('openai', ['gpt-4.1'])], {
      models: [
        { id: 'openai/gpt-4.1', context_window: 5, max_output: 2 },
        { id: 'openai/custom', context_window: 32768, input: ['text', 'image'], reasoning: ['low'] },
      ],
    });
    expect(withConfig.models('openai').map((info) => [info.id, info.contextWindow])).toEqual([
      ['gpt-4.1', 5],
      ['custom', 32768],
    ]);
    expect(withConfig.resolve('custom').info).toMatchObject({ provider: 'openai', input: ['text', 'image'], reasoningEfforts: ['low'] });
  });

  it('serves config providers through a configurable provider type, and rejects bad entries', () => {
    const base: ConfigurableModelProvider = { ...provider('openai', ['gpt-4.1']), forConfig: (name) => provider(name) };
    const local = new ModelRegistryImpl([base], { providers: { local: { type: 'openai', base_url: 'http://127.0.0.1:1/v1' } } });
    expect(local.providers()).toEqual(['local', 'openai']);
    expect(local.resolve('local/qwen3').qualified).toBe('local/qwen3');
    expect(errorOf(() => new ModelRegistryImpl([base], { providers: { x: { type: 'nope' } } })).message).toContain('type "nope" cannot serve');
    expect(errorOf(() => new ModelRegistryImpl([base], { providers: { x: {} } })).message).toContain('no installed provider plugin is named "x"');
    expect(errorOf(() => new ModelRegistryImpl([provider('a'), provider('a')], {})).code).toBe('CONFLICT');
  });

  it('is built per kernel from the provider contributions', async () => {
    const plugin = definePlugin({
      name: 'test-providers',
      module: new ContainerModule(({ bind }) => {
        bind(ModelProviderContribution).toConstantValue(provider('p1', ['m1']));
        bind(ModelProviderContribution).toConstantValue(provider('p2', ['m2']));
      }),
    });
    const kernel = await createKernel({ plugins: [plugin] });
    const fromKernel = modelRegistryFor(kernel);
    expect(fromKernel).toBe(modelRegistryFor(kernel));
    expect(fromKernel.models().map((info) => `${info.provider}/${info.id}`)).toEqual(['p1/m1', 'p2/m2']);
  });
});
