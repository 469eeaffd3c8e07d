import { Args } from '@oclif/core';
import { ErrorCodes, XdogError, withArticle } from '../../../core/index.js';
import { DEFAULT_ILINK_BASE_URL, wechatLogin, type WechatLoginResult } from '../../../plugins/channels-wechat/index.js';
import { XdogCommand } from '../../base-command.js';

export default class ClawChannelsLogin extends XdogCommand {
  static override summary = 'Log a WeChat channel in by QR code (shown in the terminal)';
  static override description = 'Scan the code with WeChat on the phone and confirm; the bot token is stored as credential wechat:ID. Restart the gateway afterwards.';
  static override enableJsonFlag = true;
  static override args = { id: Args.string({ description: 'the channel id (a wechat channel under claw.channels)', required: true }) };
  static override examples = ['<%= config.bin %> claw channels login wechat'];

  async run(): Promise<WechatLoginResult> {
    const { args, flags } = await this.parse(ClawChannelsLogin);
    const channel = (await this.loadConfig(flags)).config.claw?.channels?.[args.id];
    if (!channel) throw new XdogError(ErrorCodes.NOT_FOUND, `no channel "${args.id}" is configured`, { hint: 'add it under claw.channels (see docs/channels.md)' });
    if (channel.type !== 'wechat') throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `channel ${args.id} is ${withArticle(channel.type)} channel; only wechat channels log in by QR code`);
    const baseUrl = typeof channel.settings?.base_url === 'string' ? channel.settings.base_url : DEFAULT_ILINK_BASE_URL;
    // The QR code goes to stderr under --json, so stdout stays one JSON document.
    const result = await wechatLogin({ channel: args.id, baseUrl, print: (text) => (this.jsonEnabled() ? process.stderr.write(`${text}\n`) : this.log(text)) });
    if (!this.jsonEnabled()) {
      this.log(`logged in${result.botId ? ` as bot ${result.botId}` : ''}; the token is stored in ${result.credentialFile} as wechat:${args.id}`);
      if (result.baseUrl) this.log(`the API answered from ${result.baseUrl}: set claw.channels.${args.id}.settings.base_url to it`);
      this.log('restart the gateway to use it');
    }
    return result;
  }
}
