import { Flags } from '@oclif/core';
import { XdogCommand } from '../../base-command.js';
import { runGatewayForeground } from '../../../plugins/claw-gateway/index.js';

export default class ClawGatewayRun extends XdogCommand {
  static override summary = 'Run the claw gateway in the foreground until SIGTERM or Ctrl+C';
  static override description = `Serves the groups under claw.groups of the config file on a Unix socket in $XDG_RUNTIME_DIR/xdog/claw/ (0700), with the client token beside it (0600).
Prints one line per event of its life (ready, shutdown, problems) on stderr. A second gateway on the same store is refused and names the running one.
With --worker it joins a pool of workers sharing the store instead: it takes a fair share of the groups by lease, serves any group (calls for groups other workers own are handed to them) and takes over the groups of a worker that died once its leases expire (claw.lease_seconds). See docs/claw.md.
Use \`xdog claw gateway start\` to run it in the background.`;
  static override examples = [
    '<%= config.bin %> claw gateway run',
    'XDOG_CONFIG=team.yaml <%= config.bin %> claw gateway run',
    'XDG_RUNTIME_DIR=/run/xdog-w1 <%= config.bin %> claw gateway run --worker --name w1',
  ];
  static override flags = {
    worker: Flags.boolean({ description: 'join the pool of workers sharing the store: take a fair share of the groups instead of all of them' }),
    name: Flags.string({ description: 'the worker name `xdog claw workers` shows (default: host:pid)', dependsOn: ['worker'] }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(ClawGatewayRun);
    const log = (line: string): void => void process.stderr.write(`${new Date().toISOString()} gateway: ${line}\n`);
    await runGatewayForeground({ configFile: flags.config, version: this.config.version, log, worker: flags.worker ? { name: flags.name } : undefined });
  }
}
