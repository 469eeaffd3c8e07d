/**
 * Which embeddings API the config's `embed:` names: the openai provider or a
 * configured OpenAI-compatible `providers.<name>` (type openai) speak OpenAI's
 * wire, google speaks Gemini's. Keys and endpoints are the provider's own
 * (providers.<name> in the config, its variables, or `xdog agent login`).
 */
import { ErrorCodes, XdogError, type CredentialStore, type EmbedFunction, type XdogConfig } from '../../core/index.js';
import { GOOGLE_DEFAULTS, createGeminiEmbedder } from '../providers-google/index.js';
import { OPENAI_DEFAULTS, createOpenAIEmbedder } from '../providers-openai/index.js';
import { providerConnector } from '../providers-shared/index.js';

/** The embed function the config's `embed:` names, or undefined without that section. */
export function embedFunctionFrom(config: XdogConfig, store: CredentialStore): EmbedFunction | undefined {
  const settings = config.embed;
  if (!settings) return undefined;
  const { provider, model } = settings;
  const configured = config.providers?.[provider];
  const type = configured?.type ?? provider;
  if (type === 'google') {
    return createGeminiEmbedder({ provider, model, connector: providerConnector({ config, name: provider, defaults: GOOGLE_DEFAULTS, store, keyRequired: true }) });
  }
  if (type === 'openai') {
    // A configured server without api_key_env gets no key, never OPENAI_API_KEY meant for api.openai.com.
    const keyRequired = provider === 'openai' || Boolean(configured?.api_key_env);
    if (provider !== 'openai' && !configured?.base_url) {
      throw new XdogError(ErrorCodes.CONFIG_INVALID, `embed.provider ${provider} has no base_url: set providers.${provider}.base_url to the server's OpenAI-compatible API (for example http://127.0.0.1:8080/v1)`);
    }
    return createOpenAIEmbedder({ provider, model, connector: providerConnector({ config, name: provider, defaults: OPENAI_DEFAULTS, store, keyRequired }) });
  }
  // The plugin's boot error shows the message alone, so the fix is part of it.
  throw new XdogError(
    ErrorCodes.CONFIG_INVALID,
    `embed.provider ${provider} has no embeddings API xdog speaks: use openai, google, or a providers.<name> entry with type: openai and the base_url of an OpenAI-compatible server`,
  );
}
