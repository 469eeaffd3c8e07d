import { Args } from '@oclif/core';
import { ErrorCodes, FileCredentialStore, XdogError } from '../../core/index.js';
import { deviceCodeLogin } from '../../plugins/providers-github-copilot/index.js';
import { XdogCommand } from '../base-command.js';
import { credentialStoreOf, withProviders } from './_lib/providers.js';
import { readSecret } from './_lib/secret-input.js';

export default class AgentLogin extends XdogCommand {
  static override summary = 'Log in to a model provider (copilot: GitHub device login; others: store an API key)';
  static override description = `copilot (the default) runs GitHub's device login: open the URL shown and enter the code.
Other providers store an API key, typed hidden on a TTY or piped on stdin. Credentials go to $XDG_CONFIG_HOME/xdog/credentials.json (0600); environment variables still win over them.`;
  static override enableJsonFlag = true;
  static override args = {
    provider: Args.string({ ignoreStdin: true, description: 'provider to log in to', default: 'copilot' }),
  };
  static override examples = ['<%= config.bin %> agent login', 'printenv OPENAI_API_KEY | <%= config.bin %> agent login openai'];

  async run(): Promise<{ provider: string; stored: true }> {
    const { args, flags } = await this.parse(AgentLogin);
    const provider = args.provider;
    await withProviders(flags.config, async (registry, kernel) => {
      if (!registry.providers().includes(provider)) {
        throw new XdogError(ErrorCodes.USAGE, `no active provider "${provider}"`, { hint: `log in to one of: ${registry.providers().join(', ')}` });
      }
      const store = credentialStoreOf(kernel);
      if (provider === 'copilot') {
        const token = await deviceCodeLogin({
          onCode: ({ userCode, verificationUri }) => this.note(`Open ${verificationUri} and enter the code ${userCode}\nWaiting for approval...`),
        });
        store.set('copilot', { type: 'oauth', refresh: token });
      } else {
        const key = await readSecret(`API key for ${provider}: `);
        if (!key) throw new XdogError(ErrorCodes.USAGE, `no API key given for ${provider}`, { hint: 'type it at the prompt or pipe it on stdin' });
        store.set(provider, { type: 'api_key', key });
      }
    });
    if (!this.jsonEnabled()) this.log(`logged in to ${provider}; the credential is stored in ${new FileCredentialStore().file}`);
    return { provider, stored: true };
  }
}
