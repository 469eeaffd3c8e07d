/**
 * The WeChat channel type for claw (docs/channels.md): `type: wechat` under
 * `claw.channels`, logged in with `xdog claw channels login ID`.
 */
import { ContainerModule, definePlugin } from '../../core/index.js';
import { ChannelTypeContribution } from '../channels/index.js';
import { wechatChannel } from './wechat.js';

export { wechatChannel, wechatCredentialName } from './wechat.js';
export { wechatLogin, type WechatLoginResult } from './login.js';
export { DEFAULT_ILINK_BASE_URL } from './ilink-client.js';

export default definePlugin({
  name: 'channels-wechat',
  provides: { channels: ['wechat'] },
  module: new ContainerModule(({ bind }) => {
    bind(ChannelTypeContribution).toConstantValue(wechatChannel);
  }),
});
