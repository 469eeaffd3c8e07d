/**
 * The channels service: runs each `claw.channels` entry on the gateway that
 * serves its group — started when the group is ready here (at start, or
 * when this worker takes it over), stopped (dropping its inbox) when the
 * group goes or the gateway stops — and handles the `channel.turn` jobs of
 * the group job queue. Adds `channels.status` and `channels.test`.
 */
import { ErrorCodes, LIMITS, XdogError, describeError, textWithin, z, type ClawChannelConfig, type GroupNotice, type Kernel } from '../../core/index.js';
import { followGroups, gatewayMethod, GroupJobs, type GatewayHost, type GatewayService, type GroupJob } from '../claw-gateway/tokens.js';
import { ChannelTypeContribution, type ChannelType, type InboundMessage } from './contract.js';
import { CHANNEL_TURN_JOB, ChannelRunner, type ChannelStatus } from './runner.js';

export const CHANNELS_CAPABILITY = 'channels:1';

export class ChannelsService implements GatewayService {
  readonly name = 'channels';
  readonly capabilities = [CHANNELS_CAPABILITY];
  readonly methods = {
    'channels.status': gatewayMethod(z.object({ id: z.string().optional() }).strict(), (params): ChannelStatus[] =>
      params.id === undefined ? [...this.#runners.values()].map((runner) => runner.status()) : [this.#runner(params.id).status()],
    ),
    'channels.test': gatewayMethod(z.object({ id: z.string(), to: z.string().min(1), text: textWithin(LIMITS.channelMessageBytes, { nonEmpty: true }) }).strict(), (params) =>
      this.#runner(params.id).test(params.to, params.text),
    ),
  };
  /** Channels running here, by id. */
  readonly #runners = new Map<string, ChannelRunner>();
  /** Every configured channel (validated at start), by id. */
  readonly #configured = new Map<string, { type: ChannelType; config: ClawChannelConfig }>();
  /** Wakes turns that wait for their channel to start here. */
  readonly #started = new Set<() => void>();
  #host?: GatewayHost;
  #jobs?: GroupJobs;
  #stopped = false;

  async start(host: GatewayHost): Promise<void> {
    this.#host = host;
    const channels = channelsOf(host.kernel);
    const types = channelTypesOf(host.kernel);
    const groups = Object.keys(host.kernel.config.claw?.groups ?? {});
    for (const [id, config] of Object.entries(channels)) {
      const type = types.get(config.type);
      if (!type) {
        throw new XdogError(ErrorCodes.CONFIG_INVALID, `claw.channels.${id}.type is "${config.type}", which no installed plugin provides`, {
          hint: `available: ${[...types.keys()].sort().join(', ') || 'none'}`,
        });
      }
      if (!groups.includes(config.group)) {
        throw new XdogError(ErrorCodes.CONFIG_INVALID, `claw.channels.${id}.group names "${config.group}", which is not under claw.groups`, { hint: `use one of: ${groups.join(', ')}` });
      }
      this.#configured.set(id, { type, config });
    }
    if (this.#configured.size === 0) return;
    host.hooks.notice.tap('channels', (notice) => this.#tell(notice));
    this.#jobs = await GroupJobs.acquire(host);
    this.#jobs.handle(CHANNEL_TURN_JOB, (job) => this.#turn(job));
    await followGroups(host, 'channels', {
      ready: (group) => this.#startGroup(group.name),
      closing: (group) => this.#stopGroup(group.name),
    });
  }

  /** The gateway is about to end its runs: every channel stops taking messages. */
  stopping(): void {
    for (const runner of this.#runners.values()) runner.closeInbox();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    const runners = [...this.#runners.values()].reverse();
    this.#runners.clear();
    for (const wake of this.#started) wake();
    const failures: string[] = [];
    for (const runner of runners) await runner.stop().catch((error: unknown) => failures.push(`${runner.id}: ${String(error)}`));
    await this.#jobs?.release();
    if (failures.length) throw new XdogError(ErrorCodes.INTERNAL, `channels did not stop cleanly: ${failures.join('; ')}`);
  }

  /** Starts the channels of a group this gateway now serves. */
  async #startGroup(group: string): Promise<void> {
    if (this.#stopped) return;
    const host = this.#host!;
    for (const [id, { type, config }] of this.#configured) {
      if (config.group !== group || this.#runners.has(id)) continue;
      const runner = new ChannelRunner(id, config, type, host, this.#jobs!);
      // Recorded before starting, so stop() ends a half-started channel too.
      this.#runners.set(id, runner);
      await runner.start();
      host.log(`channel ${id}: ${config.type} channel for group ${config.group} started`);
      for (const wake of this.#started) wake();
    }
  }

  /** Stops the channels of a group this gateway gives up (their inboxes are dropped; the new owner starts them). */
  async #stopGroup(group: string): Promise<void> {
    for (const [id, runner] of this.#runners) {
      if (runner.group !== group) continue;
      this.#runners.delete(id);
      await runner.stop().catch((error: unknown) => this.#host!.log(`channel ${id}: stopping: ${String(error)}`));
    }
  }

  /** A `channel.turn` job: answered by its channel, which runs on this worker (the group's owner). */
  async #turn(job: GroupJob): Promise<void> {
    const id = String(job.data.channel);
    if (!this.#configured.has(id)) throw new XdogError(ErrorCodes.NOT_FOUND, `channel ${id} is not configured here; its message is not answered`, { hint: 'configure the same channels on every worker' });
    const runner = await this.#runningRunner(id);
    if (!runner) throw new XdogError(ErrorCodes.UNAVAILABLE, `channel ${id} did not start within ${LIMITS.groupJobHandlerWaitSeconds} s; its message is not answered`, { hint: 'look at the gateway log for why it stopped' });
    await runner.runTurn(job.data.message as InboundMessage);
  }

  /** The channel's runner once it runs here; a job left in the queue can come before its channel started (bounded wait). */
  async #runningRunner(id: string): Promise<ChannelRunner | undefined> {
    const deadline = Date.now() + LIMITS.groupJobHandlerWaitSeconds * 1000;
    for (;;) {
      const runner = this.#runners.get(id);
      if (runner?.running) return runner;
      if (this.#stopped || Date.now() >= deadline) return undefined;
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          clearTimeout(timer);
          this.#started.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, Math.max(0, deadline - Date.now()));
        timer.unref();
        this.#started.add(wake);
      });
    }
  }

  /** A group notice (a budget stopped spending) to each allowed sender of the group's channels running here ("*" names nobody). */
  #tell(notice: GroupNotice): void {
    for (const runner of this.#runners.values()) {
      if (runner.group !== notice.group || !runner.running) continue;
      for (const to of this.#configured.get(runner.id)!.config.allow_from.filter((sender) => sender !== '*')) {
        runner.test(to, `xdog: ${notice.message}`).catch((error: unknown) => this.#host?.log(`channel ${runner.id}: the notice to ${to} was not sent: ${describeError(error)}`));
      }
    }
  }

  #runner(id: string): ChannelRunner {
    const runner = this.#runners.get(id);
    if (!runner) throw new XdogError(ErrorCodes.NOT_FOUND, `no channel "${id}" is running`, { hint: `running: ${[...this.#runners.keys()].join(', ') || 'none'} (configure channels under claw.channels)` });
    return runner;
  }
}

function channelsOf(kernel: Kernel): Record<string, ClawChannelConfig> {
  return kernel.config.claw?.channels ?? {};
}

/** The channel types the kernel's plugins contribute, by type name (the kernel refuses two with one name, naming both plugins). */
export function channelTypesOf(kernel: Kernel): Map<string, ChannelType> {
  return new Map(kernel.getAll(ChannelTypeContribution).map((type) => [type.type, type]));
}
