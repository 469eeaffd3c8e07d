/** Reading one provider's settings from the config file, the same way for every provider. */
import { CredentialStoreToken, FileCredentialStore, type CredentialStore, type ImageContent, type XdogConfig } from '../../core/index.js';

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
