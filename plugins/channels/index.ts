/**
 * Channels: where people reach a claw group from the chat apps they already
 * use (docs/channels.md). The plugin contributes the channels gateway service
 * and the built-in webhook channel type; other channel types (irc, wechat, a
 * third party's) are plugins that bind `ChannelTypeContribution`.
 */
import { ContainerModule, definePlugin } from '../../core/index.js';
import { GatewayServiceContribution } from '../claw-gateway/tokens.js';
import { ChannelTypeContribution } from './contract.js';
import { ChannelsService } from './service.js';
import { webhookChannel } from './webhook.js';

export * from './contract.js';
export { chunkText } from './chunk.js';
export { ChannelInbox } from './inbox.js';
export { replyTextOf } from './reply.js';
export { storedChannelState } from './state.js';
export { CHANNELS_CAPABILITY, ChannelsService, channelTypesOf } from './service.js';
export type { ChannelStatus } from './runner.js';
export { SIGNATURE_HEADER, signBody, webhookChannel } from './webhook.js';

export default definePlugin({
  name: 'channels',
  provides: { channels: ['webhook'] },
  module: new ContainerModule(({ bind }) => {
    bind(GatewayServiceContribution).toDynamicValue(() => new ChannelsService());
    bind(ChannelTypeContribution).toConstantValue(webhookChannel);
  }),
});
