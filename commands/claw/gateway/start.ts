import path from 'node:path';
import { Flags } from '@oclif/core';
import { gatewayLocations } from '../../../plugins/claw-gateway/locations.js';
import { XdogCommand } from '../../base-command.js';
import { DAEMON_DEADLINE_MS, startDetached, type StartedGateway } from '../_lib/daemon.js';
import { helloProbe } from '../_lib/gateway.js';

export default class ClawGatewayStart extends XdogCommand {
  static override summary = 'Start the claw gateway in the background';
  static override description = `Runs "xdog claw gateway run" detached, its output appended to the log file ($XDG_STATE_HOME/xdog/claw/gateway.log), and waits until it answers on its socket.
If it exits first, the end of the log is printed and the exit code is 1. A gateway that already answers is not started twice.`;
  static override enableJsonFlag = true;
  static override flags = {
    timeout: Flags.integer({ description: 'seconds to wait for the gateway to answer', default: DAEMON_DEADLINE_MS / 1000, min: 1 }),
  };
  static override examples = ['<%= config.bin %> claw gateway start', '<%= config.bin %> claw gateway start --config ~/work/xdog.yaml'];

  async run(): Promise<StartedGateway> {
    const { flags } = await this.parse(ClawGatewayStart);
    const config = flags.config ? ['--config', path.resolve(flags.config)] : [];
    const started = await startDetached({
      locations: gatewayLocations(),
      command: [process.execPath, path.join(this.config.root, 'bin', 'run.js'), 'claw', 'gateway', 'run', ...config],
      probe: helloProbe(),
      deadlineMs: flags.timeout * 1000,
    });
    if (!this.jsonEnabled()) this.log(`gateway started: pid ${started.pid}\nsocket: ${started.socket}\nlog: ${started.logFile}`);
    return started;
  }
}
