/**
 * The `copilot` provider plugin (GitHub Copilot): log in once with GitHub's
 * device flow (`xdog agent login copilot`), which stores a GitHub token;
 * each request exchanges it for a short-lived Copilot token and speaks
 * Copilot's OpenAI-compatible Chat Completions API.
 */
import {
  Config,
  ContainerModule,
  ModelProviderContribution,
  catalogModels,
  definePlugin,
  type CredentialStore,
  type ModelProvider,
  type ModelStreamFn,
  type XdogConfig,
} from '../../core/index.js';
import { createChatCompletionsStream } from '../providers-openai/index.js';
import { credentialCheck, credentialStoreOf, type RetryPolicy } from '../providers-shared/index.js';
import { COPILOT_HEADERS, CopilotTokenSource } from './copilot-token.js';

export { COPILOT_CLIENT_ID, deviceCodeLogin, type DeviceLoginOptions } from './device-login.js';
export { COPILOT_HEADERS, CopilotExchangeError, CopilotTokenSource, type CopilotToken, type TokenSourceOptions } from './copilot-token.js';

/** Environment variables that may hold the GitHub token, before the credential store. */
export const COPILOT_TOKEN_ENV = ['COPILOT_GITHUB_TOKEN'] as const;

export interface CopilotProviderOptions {
  policy?: RetryPolicy;
  /** Default https://api.github.com (the token exchange). */
  githubApiUrl?: string;
}

export class CopilotProvider implements ModelProvider {
  readonly name = 'copilot';
  readonly stream: ModelStreamFn;
  readonly checkCredentials: () => Promise<void>;

  constructor(config: XdogConfig, store: CredentialStore, options: CopilotProviderOptions = {}) {
    const settings = config.providers?.copilot ?? {};
    const timeoutMs = (settings.timeout ?? 600) * 1000;
    const tokens = new CopilotTokenSource({ store, githubApiUrl: options.githubApiUrl, envNames: COPILOT_TOKEN_ENV, timeoutMs });
    const authHint = 'run: xdog agent login copilot';
    const connect = async (signal: AbortSignal) => {
      const token = await tokens.token(signal);
      return {
        baseURL: (settings.base_url ?? token.apiUrl).replace(/\/+$/, ''),
        apiKey: token.token,
        headers: { ...COPILOT_HEADERS, ...(settings.headers ?? {}) },
        timeoutMs,
      };
    };
    this.stream = createChatCompletionsStream({
      provider: this.name,
      policy: options.policy,
      authHint,
      models: () => catalogModels(this.name),
      secrets: () => [tokens.githubToken() ?? ''].filter(Boolean),
      connect,
    });
    this.checkCredentials = credentialCheck(this.name, authHint, connect);
  }
}

export default definePlugin({
  name: 'providers-github-copilot',
  provides: { providers: ['copilot'] },
  module: new ContainerModule(({ bind }) => {
    bind(ModelProviderContribution).toDynamicValue((context) => new CopilotProvider(context.get(Config), credentialStoreOf(context)));
  }),
});
