/**
 * The IRC channel type for claw (docs/channels.md): `type: irc` under
 * `claw.channels`.
 */
import { ContainerModule, definePlugin } from '../../core/index.js';
import { ChannelTypeContribution } from '../channels/index.js';
import { ircChannel } from './irc.js';

export { ircChannel } from './irc.js';

export default definePlugin({
  name: 'channels-irc',
  provides: { channels: ['irc'] },
  module: new ContainerModule(({ bind }) => {
    bind(ChannelTypeContribution).toConstantValue(ircChannel);
  }),
});
