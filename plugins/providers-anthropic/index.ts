/**
 * The `anthropic` provider plugin: Anthropic's Messages API (with extended
 * thinking) through the official SDK. The API key comes from
 * ANTHROPIC_API_KEY (or `providers.anthropic.api_key_env`), else from
 * `xdog agent login anthropic`. Config entries with `type: anthropic` become
 * further providers on any Anthropic-Messages-compatible endpoint:
 *
 *   providers:
 *     proxy: { type: anthropic, base_url: "https://llm-proxy.example/anthropic", api_key_env: PROXY_KEY }
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
import { credentialCheck, credentialStoreOf, providerConnector, type RetryPolicy } from '../providers-shared/index.js';
import { createMessagesStream } from './messages-stream.js';

export { createMessagesStream, THINKING_BUDGETS, type AnthropicConnection, type AnthropicStreamOptions } from './messages-stream.js';

const DEFAULTS = { apiKeyEnv: ['ANTHROPIC_API_KEY'], baseURL: 'https://api.anthropic.com' };

/**
 * The Anthropic provider, or one configured Anthropic-compatible endpoint
 * (`name` other than "anthropic"). The built-in one needs an API key and knows
 * the catalog's models; a configured one sends a key only when `api_key_env`
 * names one, and lists only the models the config declares (or takes any id).
 */
export class AnthropicProvider implements ConfigurableModelProvider {
  readonly name: string;
  readonly stream: ModelStreamFn;
  readonly checkCredentials: () => Promise<void>;

  constructor(
    private readonly config: XdogConfig,
    private readonly store: CredentialStore,
    private readonly options: { policy?: RetryPolicy; name?: string } = {},
  ) {
    const name = (this.name = options.name ?? 'anthropic');
    const builtin = name === 'anthropic';
    const { authHint, connect } = providerConnector({ config, name, defaults: DEFAULTS, store, keyRequired: builtin || Boolean(config.providers?.[name]?.api_key_env) });
    this.stream = createMessagesStream({ provider: name, policy: options.policy, authHint, models: builtin ? () => catalogModels(name) : undefined, connect });
    this.checkCredentials = credentialCheck(name, authHint, connect);
  }

  forConfig(name: string): ModelProvider {
    return new AnthropicProvider(this.config, this.store, { ...this.options, name });
  }
}

export default definePlugin({
  name: 'providers-anthropic',
  provides: { providers: ['anthropic'] },
  module: new ContainerModule(({ bind }) => {
    bind(ModelProviderContribution).toDynamicValue((context) => new AnthropicProvider(context.get(Config), credentialStoreOf(context)));
  }),
});
