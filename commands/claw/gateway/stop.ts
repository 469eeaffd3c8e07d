import { Flags } from '@oclif/core';
import { ErrorCodes, XdogError } from '../../../core/errors.js';
import { gatewayLocations } from '../../../plugins/claw-gateway/locations.js';
import type { GatewayStatus } from '../../../plugins/claw-gateway/protocol.js';
import { XdogCommand } from '../../base-command.js';
import { DAEMON_DEADLINE_MS, isAlive, readPidFile, terminate } from '../_lib/daemon.js';
import { withGateway } from '../_lib/gateway.js';

export default class ClawGatewayStop extends XdogCommand {
  static override summary = 'Stop the background claw gateway (SIGTERM, then wait for it to exit)';
  static override description = `Stops the process named by the pid file once the gateway confirms over its socket that the pid is its own.
Running turns end as interrupted (their clients, the run log and the schedule history say so) and waiting prompts as dropped; their interrupted tool calls are recorded as such. Exit 1 when no gateway runs or it does not exit in time.`;
  static override enableJsonFlag = true;
  static override flags = {
    timeout: Flags.integer({ description: 'seconds to wait for the gateway to exit', default: DAEMON_DEADLINE_MS / 1000, min: 1 }),
  };
  static override examples = ['<%= config.bin %> claw gateway stop'];

  async run(): Promise<{ pid: number; stopped: true }> {
    const { flags } = await this.parse(ClawGatewayStop);
    const { pidFile, socket } = gatewayLocations();
    const recorded = readPidFile(pidFile);
    let status: GatewayStatus;
    try {
      status = await withGateway(async (gateway) => (await gateway.call('gateway.status', {})) as GatewayStatus);
    } catch (error) {
      if (!XdogError.is(error, ErrorCodes.UNAVAILABLE)) throw error;
      const stale = recorded !== undefined && isAlive(recorded) ? `; ${pidFile} names pid ${recorded}, which runs but does not answer as the gateway, so it was left alone` : '';
      throw new XdogError(ErrorCodes.UNAVAILABLE, `no gateway is running on ${socket}${stale}`, { hint: 'xdog claw gateway start starts one' });
    }
    if (recorded !== status.pid) {
      const what = recorded === undefined ? `there is no pid file ${pidFile}` : `${pidFile} names pid ${recorded}`;
      throw new XdogError(ErrorCodes.CONFLICT, `the gateway on ${socket} is pid ${status.pid} but ${what}; nothing was stopped`, {
        hint: `if pid ${status.pid} is the one to stop: kill ${status.pid}`,
      });
    }
    if (!(await terminate(status.pid, flags.timeout * 1000))) {
      throw new XdogError(ErrorCodes.INVALID_STATE, `the gateway (pid ${status.pid}) still runs ${flags.timeout} s after SIGTERM`, {
        hint: `it may be finishing a write; check again with xdog claw gateway status, or end it with kill -9 ${status.pid}`,
      });
    }
    if (!this.jsonEnabled()) this.log(`gateway stopped (pid ${status.pid})`);
    return { pid: status.pid, stopped: true };
  }
}
