/**
 * Logs a WeChat channel in: shows the login QR code in the terminal, waits
 * (bounded) for the phone to scan and confirm it, and stores the bot token
 * as credential `wechat:ID`. Nothing is retried: an expired code ends the
 * login and says so.
 */
import qrcode from 'qrcode-terminal';
import { ErrorCodes, FileCredentialStore, XdogError } from '../../core/index.js';
import { ILinkClient } from './ilink-client.js';
import { wechatCredentialName } from './wechat.js';

/** How long a login waits for the code to be scanned and confirmed. */
const LOGIN_DEADLINE_MS = 5 * 60_000;

export interface WechatLoginResult {
  channel: string;
  botId: string | null;
  /** The API base URL the login answered with, when it differs from the configured one. */
  baseUrl: string | null;
  credentialFile: string;
}

export async function wechatLogin(options: { channel: string; baseUrl: string; print(text: string): void }): Promise<WechatLoginResult> {
  const signal = AbortSignal.timeout(LOGIN_DEADLINE_MS);
  const client = new ILinkClient(options.baseUrl);
  const code = await client.loginQrCode(signal);
  options.print(await new Promise<string>((resolve) => qrcode.generate(code.qrcode_img_content, { small: true }, resolve)));
  options.print('Scan this code with WeChat on your phone and confirm the login.');
  let announced = false;
  for (;;) {
    if (signal.aborted) throw new XdogError(ErrorCodes.UNAVAILABLE, `the login QR code was not confirmed within ${LOGIN_DEADLINE_MS / 60_000} minutes`, { hint: 'run the login again' });
    const status = await client.loginStatus(code.qrcode, signal);
    if (status.status === 'scaned' && !announced) {
      announced = true;
      options.print('Scanned; confirm on the phone.');
    } else if (status.status === 'expired') {
      throw new XdogError(ErrorCodes.UNAVAILABLE, 'the login QR code expired before it was confirmed', { hint: 'run the login again' });
    } else if (status.status === 'confirmed') {
      if (!status.bot_token) throw new XdogError(ErrorCodes.UNAVAILABLE, 'the login was confirmed but the API gave no token');
      const store = new FileCredentialStore();
      store.set(wechatCredentialName(options.channel), { type: 'api_key', key: status.bot_token });
      const baseUrl = status.baseurl && new URL(status.baseurl).href !== new URL(client.baseUrl).href ? status.baseurl : null;
      return { channel: options.channel, botId: status.ilink_bot_id ?? null, baseUrl, credentialFile: store.file };
    }
  }
}
