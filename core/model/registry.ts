/**
 * The model registry: collects the `ModelProviderContribution` multi-bindings
 * of the loaded provider plugins and routes "provider/model" to one of them.
 *
 * Rules: a bare id is accepted only when exactly one active provider offers
 * it (else MODEL_AMBIGUOUS, listing the qualified ids); an unknown model fails
 * with MODEL_UNKNOWN, listing the known ones; nothing ever falls back to
 * another provider or model.
 */
import type { XdogConfig } from '../config.js';
import { ErrorCodes, XdogError, describeError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import { Config, ModelProviderContribution, ModelRegistryToken, token } from '../tokens.js';
import { zeroUsage } from '../agent/messages.js';
import { configModels, mergeModels } from './catalog.js';
import type { AssistantStreamEvent, ModelInfo, ModelProvider, ModelStreamFn } from './types.js';

/**
 * A provider plugin that can also serve providers declared in the config file
 * with `type: <its name>` (e.g. `local: { type: openai, base_url: ... }`).
 */
export interface ConfigurableModelProvider extends ModelProvider {
  /** A provider named `name` that reads its settings from `providers.<name>` in the config. */
  forConfig(name: string): ModelProvider;
}

/** A model resolved to the provider that serves it. */
export interface ResolvedModel {
  provider: ModelProvider;
  /** The id the provider receives (no "provider/" prefix). */
  id: string;
  /** "provider/id". */
  qualified: string;
  /** Metadata, when the provider or the config declares any. */
  info: ModelInfo;
  /** True when the model is in its provider's list or the config's `models:` (its metadata is declared, not assumed). */
  listed: boolean;
}

/** The model registry service (DI token `ModelRegistryToken`). */
export interface ModelRegistry {
  /** Active provider ids, sorted. */
  providers(): string[];
  /** Known models of one provider (or of all), with `provider` set. */
  models(provider?: string): ModelInfo[];
  /** Resolves the model and the credential its provider would use, without calling it (see ModelProvider.checkCredentials). */
  checkCredentials?(model: string): Promise<ResolvedModel>;
  /** True when a provider lists no models and takes any model id (a configured server without `models:`). */
  acceptsAnyModel?(provider: string): boolean;
  /** Resolves "provider/model" or an unambiguous bare id; throws MODEL_UNKNOWN / MODEL_AMBIGUOUS. */
  resolve(model: string): ResolvedModel;
  /** One stream function over every provider; it routes by the model name it is given. */
  readonly streamFn: ModelStreamFn;
}

function isConfigurable(provider: ModelProvider): provider is ConfigurableModelProvider {
  return typeof (provider as ConfigurableModelProvider).forConfig === 'function';
}

/**
 * Providers that come and go while the kernel runs (an extension's
 * `registerProvider`), looked up by name after the fixed ones.
 */
export interface DynamicModelProviders {
  provider(name: string): ModelProvider | undefined;
  names(): string[];
}

/** Multi-binding: sources of dynamic model providers. */
export const DynamicModelProvidersToken = token<DynamicModelProviders>('DynamicModelProviders');

export class ModelRegistryImpl implements ModelRegistry {
  readonly #fixed = new Map<string, ModelProvider>();
  readonly #config: XdogConfig;
  readonly #dynamic: readonly DynamicModelProviders[];
  readonly streamFn: ModelStreamFn;

  /** Fixed providers by name, then the dynamic sources' current ones. */
  readonly #providers = {
    get: (name: string): ModelProvider | undefined => this.#fixed.get(name) ?? this.#dynamic.map((source) => source.provider(name)).find(Boolean),
    has: (name: string): boolean => this.#providers.get(name) !== undefined,
    set: (name: string, provider: ModelProvider) => this.#fixed.set(name, provider),
    keys: (): string[] => [...new Set([...this.#fixed.keys(), ...this.#dynamic.flatMap((source) => source.names())])],
    values: (): ModelProvider[] => [...this.#fixed.values()],
  };

  constructor(contributions: readonly ModelProvider[], config: XdogConfig, dynamic: readonly DynamicModelProviders[] = []) {
    this.#config = config;
    this.#dynamic = dynamic;
    for (const provider of contributions) this.#add(provider, 'a provider plugin');
    for (const [name, settings] of Object.entries(config.providers ?? {})) {
      if (!settings.type || this.#providers.has(name)) {
        if (!this.#providers.has(name)) {
          throw new XdogError(ErrorCodes.CONFIG_INVALID, `config providers.${name}: no installed provider plugin is named "${name}"`, {
            hint: `add "type: <provider>" to serve it with one of: ${[...this.#providers.keys()].sort().join(', ') || 'none installed'}`,
          });
        }
        continue;
      }
      const base = this.#providers.get(settings.type);
      if (!base || !isConfigurable(base)) {
        const types = [...this.#providers.values()].filter(isConfigurable).map((p) => p.name);
        throw new XdogError(ErrorCodes.CONFIG_INVALID, `config providers.${name}: type "${settings.type}" cannot serve a configured provider`, {
          hint: `use one of: ${types.sort().join(', ') || 'none installed'}`,
        });
      }
      this.#add(base.forConfig(name), `providers.${name} in the config`);
    }
    this.streamFn = this.#makeStreamFn();
  }

  #add(provider: ModelProvider, source: string): void {
    if (this.#providers.has(provider.name)) {
      throw new XdogError(ErrorCodes.CONFLICT, `two model providers are named "${provider.name}" (the second from ${source})`, {
        hint: 'deselect one of the plugins or rename the configured provider',
      });
    }
    this.#providers.set(provider.name, provider);
  }

  providers(): string[] {
    return [...this.#providers.keys()].sort();
  }

  models(provider?: string): ModelInfo[] {
    if (provider !== undefined && !this.#providers.has(provider)) throw this.#unknownProvider(provider);
    const names = provider === undefined ? this.providers() : [provider];
    return names.flatMap((name) => this.#modelsOf(name) ?? []);
  }

  async checkCredentials(model: string): Promise<ResolvedModel> {
    const resolved = this.resolve(model);
    await resolved.provider.checkCredentials?.();
    return resolved;
  }

  acceptsAnyModel(provider: string): boolean {
    if (!this.#providers.has(provider)) throw this.#unknownProvider(provider);
    return this.#modelsOf(provider) === undefined;
  }

  /** A provider's known models, or undefined for an opaque provider that lists none. */
  #modelsOf(name: string): ModelInfo[] | undefined {
    const provider = this.#providers.get(name)!;
    const listed = provider.stream.models?.().map((model) => ({ ...model, provider: name }));
    const configured = configModels(this.#config, name);
    if (listed === undefined && configured.length === 0) return undefined;
    return mergeModels(configured, listed ?? []);
  }

  resolve(model: string): ResolvedModel {
    const slash = model.indexOf('/');
    if (model.trim() === '' || slash === 0 || slash === model.length - 1) {
      throw new XdogError(ErrorCodes.MODEL_UNKNOWN, `"${model}" is not a model name`, { hint: 'name a model as provider/model, e.g. openai/gpt-4.1' });
    }
    if (slash > 0) {
      const name = model.slice(0, slash);
      const id = model.slice(slash + 1);
      const provider = this.#providers.get(name);
      if (!provider) throw this.#unknownProvider(name, model);
      const listed = this.#modelsOf(name)?.some((info) => info.id === id) ?? false;
      return { provider, id, qualified: model, info: this.#infoOf(name, id, model), listed };
    }
    const offering = this.providers().filter((name) => this.#modelsOf(name)?.some((info) => info.id === model));
    if (offering.length === 1) return this.resolve(`${offering[0]}/${model}`);
    if (offering.length > 1) {
      throw new XdogError(ErrorCodes.MODEL_AMBIGUOUS, `model "${model}" is offered by ${offering.length} providers: ${offering.map((name) => `${name}/${model}`).join(', ')}`, {
        hint: 'name it with its provider, as provider/model',
      });
    }
    throw new XdogError(ErrorCodes.MODEL_UNKNOWN, `unknown model "${model}"; known: ${this.#knownList()}`, {
      hint: 'name a listed model as provider/model (xdog agent models), or declare it under models: in the config',
    });
  }

  #infoOf(name: string, id: string, qualified: string): ModelInfo {
    const known = this.#modelsOf(name);
    if (known === undefined) return this.#providers.get(name)!.stream.resolveModel?.(id) ?? { id, provider: name };
    // A listed model, else whatever the provider itself resolves (a provider may serve ids it does not list).
    const info = known.find((entry) => entry.id === id) ?? this.#providers.get(name)!.stream.resolveModel?.(id);
    if (info) return { ...info, provider: name };
    throw new XdogError(ErrorCodes.MODEL_UNKNOWN, `unknown model "${qualified}"; ${name} knows: ${known.map((entry) => `${name}/${entry.id}`).join(', ') || 'none'}`, {
      hint: `declare it in the config: models: [{ id: ${qualified}, context_window: ..., max_output: ... }]`,
    });
  }

  #knownList(): string {
    const parts = this.providers().map((name) => {
      const known = this.#modelsOf(name);
      return known === undefined ? `${name}/<any>` : known.map((info) => `${name}/${info.id}`).join(', ');
    });
    return parts.filter(Boolean).join(', ') || 'none (no provider plugin is active)';
  }

  #unknownProvider(name: string, model?: string): XdogError {
    const what = model ? `unknown model "${model}": no active provider "${name}"` : `no active provider "${name}"`;
    return new XdogError(ErrorCodes.MODEL_UNKNOWN, what, {
      hint: `active providers: ${this.providers().join(', ') || 'none'}; configure one under providers: in the config`,
    });
  }

  #makeStreamFn(): ModelStreamFn {
    const stream = (model: string, context: Parameters<ModelStreamFn>[1], options: Parameters<ModelStreamFn>[2]): AsyncIterable<AssistantStreamEvent> => {
      let resolved: ResolvedModel;
      try {
        resolved = this.resolve(model);
      } catch (error) {
        return failedStream(model, describeError(error));
      }
      return resolved.provider.stream(resolved.id, context, options);
    };
    return Object.assign(stream, {
      resolveModel: (model: string): ModelInfo | undefined => {
        try {
          return this.resolve(model).info;
        } catch {
          return undefined;
        }
      },
      models: (): ModelInfo[] => this.models(),
    });
  }
}

/** A stream that ends at once with an error message (the ModelStreamFn never-throw contract). */
async function* failedStream(model: string, errorMessage: string): AsyncIterable<AssistantStreamEvent> {
  yield {
    type: 'error',
    message: { role: 'assistant', content: [], model, usage: zeroUsage(), stopReason: 'error', errorMessage, timestamp: Date.now() },
  };
}

const registries = new WeakMap<Kernel, ModelRegistry>();

/**
 * The kernel's model registry: the service bound to `ModelRegistryToken` when
 * a host binds one, else one built (once per kernel) from the provider
 * contributions and the config.
 */
export function modelRegistryFor(kernel: Kernel): ModelRegistry {
  if (kernel.isBound(ModelRegistryToken)) return kernel.get(ModelRegistryToken);
  let registry = registries.get(kernel);
  if (!registry) {
    registry = new ModelRegistryImpl(kernel.getAll(ModelProviderContribution), kernel.get(Config), kernel.getAll(DynamicModelProvidersToken));
    registries.set(kernel, registry);
  }
  return registry;
}
