import { Args } from '@oclif/core';
import { ErrorCodes, XdogError } from '../../core/index.js';
import { XdogCommand } from '../base-command.js';
import { credentialStoreOf, withProviders } from './_lib/providers.js';

export default class AgentLogout extends XdogCommand {
  static override summary = "Remove a provider's stored credential (environment variables are not touched)";
  static override enableJsonFlag = true;
  static override args = {
    provider: Args.string({ ignoreStdin: true, description: 'provider to log out of', default: 'copilot' }),
  };
  static override examples = ['<%= config.bin %> agent logout openai'];

  async run(): Promise<{ provider: string; removed: true }> {
    const { args, flags } = await this.parse(AgentLogout);
    await withProviders(flags.config, (_registry, kernel) => {
      const store = credentialStoreOf(kernel);
      if (!store.delete(args.provider)) {
        throw new XdogError(ErrorCodes.NOT_FOUND, `no stored credential for ${args.provider}`, {
          hint: `stored: ${store.providers().join(', ') || 'none'}`,
        });
      }
    });
    if (!this.jsonEnabled()) this.log(`removed the stored credential for ${args.provider}`);
    return { provider: args.provider, removed: true };
  }
}
