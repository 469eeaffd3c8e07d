/**
 * The `google` provider plugin: Gemini models through the official
 * `@google/genai` SDK (chat, tools, thinking, images in). The API key comes
 * from GEMINI_API_KEY or GOOGLE_API_KEY (or `providers.google.api_key_env`),
 * else from `xdog agent login google`.
 */
import { Config, ContainerModule, ModelProviderContribution, catalogModels, definePlugin, type CredentialStore, type ModelProvider, type ModelStreamFn, type XdogConfig } from '../../core/index.js';
import { ImageGeneratorContribution } from '../images/index.js';
import { credentialCheck, credentialStoreOf, providerConnector, type RetryPolicy } from '../providers-shared/index.js';
import { createGenerateContentStream } from './generate-stream.js';

export { createGenerateContentStream, GEMINI_THINKING_BUDGETS, type GeminiConnection, type GeminiStreamOptions } from './generate-stream.js';
export { toGeminiContents, toGeminiTools } from './convert.js';

import { createGeminiImageGenerator } from './images.js';

export { createGeminiImageGenerator } from './images.js';
export { createGeminiEmbedder } from './embeddings.js';
/** Where the Gemini provider connects and which variables hold its key, unless providers.google says otherwise. */
export const GOOGLE_DEFAULTS = { apiKeyEnv: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'], baseURL: 'https://generativelanguage.googleapis.com' };

const DEFAULTS = GOOGLE_DEFAULTS;

export class GoogleProvider implements ModelProvider {
  readonly name = 'google';
  readonly stream: ModelStreamFn;
  readonly checkCredentials: () => Promise<void>;

  constructor(config: XdogConfig, store: CredentialStore, options: { policy?: RetryPolicy } = {}) {
    const { authHint, connect } = providerConnector({ config, name: this.name, defaults: DEFAULTS, store, keyRequired: true });
    this.stream = createGenerateContentStream({ provider: this.name, policy: options.policy, authHint, models: () => catalogModels(this.name), connect });
    this.checkCredentials = credentialCheck(this.name, authHint, connect);
  }
}

export default definePlugin({
  name: 'providers-google',
  provides: { providers: ['google'] },
  module: new ContainerModule(({ bind }) => {
    bind(ModelProviderContribution).toDynamicValue((context) => new GoogleProvider(context.get(Config), credentialStoreOf(context)));
    bind(ImageGeneratorContribution).toDynamicValue((context) => createGeminiImageGenerator({ config: context.get(Config), store: credentialStoreOf(context), defaults: DEFAULTS }));
  }),
});
