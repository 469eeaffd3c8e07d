/**
 * The `openai` provider plugin: OpenAI's Chat Completions API through the
 * official SDK. Config entries with `type: openai` become further providers
 * on any OpenAI-compatible server (Ollama, vLLM, llama.cpp, OpenRouter):
 *
 *   providers:
 *     local: { type: openai, base_url: "http://127.0.0.1:11434/v1" }
 *
 * The Chat Completions stream is exported for other provider plugins
 * (GitHub Copilot speaks the same API).
 */
import {
  Config,
  ContainerModule,
  ModelProviderContribution,
  catalogModels,
  definePlugin,
  type ConfigurableModelProvider,
  type CredentialStore,
  type ModelProvider,
  type ModelStreamFn,
  type XdogConfig,
} from '../../core/index.js';
import { ImageGeneratorContribution } from '../images/index.js';
import { credentialCheck, credentialStoreOf, providerConnector, type RetryPolicy } from '../providers-shared/index.js';
import { createChatCompletionsStream } from './chat-completions.js';
import { createOpenAIImageGenerator } from './images.js';

export { createChatCompletionsStream, type ChatCompletionsOptions, type ChatConnection } from './chat-completions.js';
export { toChatMessages, toChatTools } from './convert.js';
export { createOpenAIImageGenerator } from './images.js';
export { openAISize } from './image-sizes.js';
export { createOpenAIEmbedder } from './embeddings.js';
/** Where the OpenAI provider connects and which variable holds its key, unless providers.openai says otherwise. */
export const OPENAI_DEFAULTS = { apiKeyEnv: ['OPENAI_API_KEY'], baseURL: 'https://api.openai.com/v1' };

const DEFAULTS = OPENAI_DEFAULTS;

/**
 * The OpenAI provider, or one configured OpenAI-compatible server. The built-in
 * `openai` needs an API key and knows the catalog's models; a configured server
 * sends a key only when `api_key_env` names one, and lists only the models the
 * config declares (or takes any id when it declares none).
 */
export class OpenAIProvider implements ConfigurableModelProvider {
  readonly stream: ModelStreamFn;
  readonly checkCredentials: () => Promise<void>;

  constructor(
    readonly name: string,
    private readonly config: XdogConfig,
    private readonly store: CredentialStore,
    options: { builtin?: boolean; policy?: RetryPolicy } = {},
  ) {
    const builtin = options.builtin ?? name === 'openai';
    // A configured server without api_key_env gets no key: never OPENAI_API_KEY meant for api.openai.com.
    const { authHint, connect } = providerConnector({ config, name, defaults: DEFAULTS, store, keyRequired: builtin || Boolean(config.providers?.[name]?.api_key_env) });
    this.stream = createChatCompletionsStream({ provider: name, policy: options.policy, authHint, models: builtin ? () => catalogModels(name, 'openai') : undefined, connect });
    this.checkCredentials = credentialCheck(name, authHint, connect);
  }

  forConfig(name: string): ModelProvider {
    return new OpenAIProvider(name, this.config, this.store, { builtin: false });
  }
}

export default definePlugin({
  name: 'providers-openai',
  provides: { providers: ['openai'] },
  module: new ContainerModule(({ bind }) => {
    bind(ModelProviderContribution).toDynamicValue((context) => new OpenAIProvider('openai', context.get(Config), credentialStoreOf(context)));
    bind(ImageGeneratorContribution).toDynamicValue((context) => createOpenAIImageGenerator({ config: context.get(Config), store: credentialStoreOf(context), defaults: DEFAULTS }));
  }),
});
