/**
 * The channels service: starts one runner per `claw.channels` entry when the
 * gateway starts and stops them (dropping their inboxes) before the groups
 * close. Adds `channels.status` and `channels.test` to the protocol.
 */
import { ErrorCodes, XdogError, z, type Kernel } from '../../core/index.js';
import { gatewayMethod, type GatewayHost, type GatewayService } from '../claw-gateway/index.js';
import { ChannelTypeContribution, type ChannelType } from './contract.js';
import { ChannelRunner, type ChannelStatus } from './runner.js';

export const CHANNELS_CAPABILITY = 'channels:1';

export class ChannelsService implements GatewayService {
  readonly name = 'channels';
  readonly capabilities = [CHANNELS_CAPABILITY];
  readonly methods = {
    'channels.status': gatewayMethod(z.object({ id: z.string().optional() }).strict(), (params): ChannelStatus[] =>
      params.id === undefined ? [...this.#runners.values()].map((runner) => runner.status()) : [this.#runner(params.id).status()],
    ),
    'channels.test': gatewayMethod(z.object({ id: z.string(), to: z.string().min(1), text: z.string().min(1).max(4000) }).strict(), (params) =>
      this.#runner(params.id).test(params.to, params.text),
    ),
  };
  readonly #runners = new Map<string, ChannelRunner>();

  async start(host: GatewayHost): Promise<void> {
    const channels = host.kernel.config.claw?.channels ?? {};
    const types = channelTypesOf(host.kernel);
    for (const [id, config] of Object.entries(channels)) {
      const type = types.get(config.type);
      if (!type) {
        throw new XdogError(ErrorCodes.CONFIG_INVALID, `claw.channels.${id}.type is "${config.type}", which no installed plugin provides`, {
          hint: `available: ${[...types.keys()].sort().join(', ') || 'none'}`,
        });
      }
      if (!host.groups.has(config.group)) {
        throw new XdogError(ErrorCodes.CONFIG_INVALID, `claw.channels.${id}.group names "${config.group}", which is not under claw.groups`, { hint: `use one of: ${[...host.groups.keys()].join(', ')}` });
      }
      const runner = new ChannelRunner(id, config, type, host);
      // Recorded before starting, so stop() ends a half-started channel too.
      this.#runners.set(id, runner);
      await runner.start();
      host.log(`channel ${id}: ${config.type} channel for group ${config.group} started`);
    }
  }

  async stop(): Promise<void> {
    const runners = [...this.#runners.values()].reverse();
    this.#runners.clear();
    const failures: string[] = [];
    for (const runner of runners) await runner.stop().catch((error: unknown) => failures.push(`${runner.id}: ${String(error)}`));
    if (failures.length) throw new XdogError(ErrorCodes.INTERNAL, `channels did not stop cleanly: ${failures.join('; ')}`);
  }

  #runner(id: string): ChannelRunner {
    const runner = this.#runners.get(id);
    if (!runner) throw new XdogError(ErrorCodes.NOT_FOUND, `no channel "${id}" is running`, { hint: `running: ${[...this.#runners.keys()].join(', ') || 'none'} (configure channels under claw.channels)` });
    return runner;
  }
}

/** The channel types the kernel's plugins contribute, by type name; two with one name fail. */
export function channelTypesOf(kernel: Kernel): Map<string, ChannelType> {
  const types = new Map<string, ChannelType>();
  for (const type of kernel.getAll(ChannelTypeContribution)) {
    if (types.has(type.type)) throw new XdogError(ErrorCodes.PLUGIN_INVALID, `two plugins provide the channel type "${type.type}"`, { hint: 'uninstall one of them' });
    types.set(type.type, type);
  }
  return types;
}
