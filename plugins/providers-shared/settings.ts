/** Reading one provider's settings from the config file, the same way for every provider. */
import { CredentialStoreToken, FileCredentialStore, resolveApiKey, type CredentialStore, type ImageContent, type XdogConfig } from '../../core/index.js';
import { MissingCredentialError } from './failures.js';

/** The bound credential store (a host may rebind it), else the file store. */
export function credentialStoreOf(context: { get<T>(id: symbol, options: { optional: true }): T | undefined }): CredentialStore {
  return context.get<CredentialStore>(CredentialStoreToken, { optional: true }) ?? new FileCredentialStore();
}

/** A provider's effective settings: config `providers.<name>` over the plugin's defaults. */
export interface ProviderSettings {
  /** Environment variables tried for the API key, in order. */
  apiKeyEnv: string[];
  baseURL: string;
  headers: Record<string, string>;
  /** Per-request timeout in ms. */
  timeoutMs: number;
}

export function providerSettings(config: XdogConfig, name: string, defaults: { apiKeyEnv: string[]; baseURL: string }): ProviderSettings {
  const entry = config.providers?.[name] ?? {};
  return {
    apiKeyEnv: entry.api_key_env ? [entry.api_key_env] : defaults.apiKeyEnv,
    baseURL: (entry.base_url ?? defaults.baseURL).replace(/\/+$/, ''),
    headers: { ...(entry.headers ?? {}) },
    timeoutMs: (entry.timeout ?? 600) * 1000,
  };
}

/** A data: URL for an image part (the form OpenAI-compatible APIs take). */
export function imageDataUrl(image: ImageContent): string {
  return `data:${image.mimeType};base64,${image.data}`;
}

/** What a provider's stream connects with: its endpoint, key (absent when none is sent), headers and timeout. */
export interface ProviderConnection {
  baseURL: string;
  apiKey?: string;
  headers: Record<string, string>;
  timeoutMs: number;
}

/** How one provider connects: the auth hint its errors carry, and a `connect` that reads settings and key at request time. */
export interface ProviderConnector {
  authHint: string;
  connect(): Promise<ProviderConnection>;
}

/**
 * The one way a provider finds its settings and key. `keyRequired` false (a
 * configured endpoint without api_key_env) sends no key at all, never one from
 * the environment meant for the vendor's own API.
 */
export function providerConnector(options: { config: XdogConfig; name: string; defaults: { apiKeyEnv: string[]; baseURL: string }; store: CredentialStore; keyRequired: boolean }): ProviderConnector {
  const { config, name, defaults, store, keyRequired } = options;
  const settings = (): ProviderSettings => providerSettings(config, name, defaults);
  return {
    authHint: `set ${settings().apiKeyEnv.join(' or ')} or run: xdog agent login ${name}`,
    async connect() {
      const current = settings();
      const key = keyRequired ? resolveApiKey(name, current.apiKeyEnv, store) : undefined;
      if (!key && keyRequired) throw new MissingCredentialError(`no API key for ${name}`);
      return { baseURL: current.baseURL, apiKey: key?.key, headers: current.headers, timeoutMs: current.timeoutMs };
    },
  };
}
