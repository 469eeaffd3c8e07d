/**
 * The `anthropic` provider plugin: Anthropic's Messages API (with extended
 * thinking) through the official SDK. The API key comes from
 * ANTHROPIC_API_KEY (or `providers.anthropic.api_key_env`), else from
 * `xdog agent login anthropic`.
 */
import {
  Config,
  ContainerModule,
  ModelProviderContribution,
  catalogModels,
  definePlugin,
  resolveApiKey,
  type CredentialStore,
  type ModelProvider,
  type ModelStreamFn,
  type XdogConfig,
} from '../../core/index.js';
import { MissingCredentialError, credentialStoreOf, providerSettings, type RetryPolicy } from '../providers-shared/index.js';
import { createMessagesStream } from './messages-stream.js';

export { createMessagesStream, THINKING_BUDGETS, type AnthropicConnection, type AnthropicStreamOptions } from './messages-stream.js';

const DEFAULTS = { apiKeyEnv: ['ANTHROPIC_API_KEY'], baseURL: 'https://api.anthropic.com' };

export class AnthropicProvider implements ModelProvider {
  readonly name = 'anthropic';
  readonly stream: ModelStreamFn;

  constructor(config: XdogConfig, store: CredentialStore, options: { policy?: RetryPolicy } = {}) {
    const settings = (): ReturnType<typeof providerSettings> => providerSettings(config, this.name, DEFAULTS);
    this.stream = createMessagesStream({
      provider: this.name,
      policy: options.policy,
      authHint: `set ${settings().apiKeyEnv.join(' or ')} or run: xdog agent login anthropic`,
      models: () => catalogModels(this.name),
      connect: async () => {
        const current = settings();
        const key = resolveApiKey(this.name, current.apiKeyEnv, store);
        if (!key) throw new MissingCredentialError(`no API key for anthropic`);
        return { baseURL: current.baseURL, apiKey: key.key, headers: current.headers, timeoutMs: current.timeoutMs };
      },
    });
  }
}

export default definePlugin({
  name: 'providers-anthropic',
  provides: { providers: ['anthropic'] },
  module: new ContainerModule(({ bind }) => {
    bind(ModelProviderContribution).toDynamicValue((context) => new AnthropicProvider(context.get(Config), credentialStoreOf(context)));
  }),
});
