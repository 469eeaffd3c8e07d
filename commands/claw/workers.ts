import { ClockToken, ErrorCodes, XdogError, bootKernel } from '../../core/index.js';
import { leaseMsOf, openConfiguredStore } from '../../plugins/claw-gateway/index.js';
import type { WorkersReport } from '../../plugins/claw-gateway/protocol.js';
import { workersReport } from '../../plugins/claw-gateway/index.js';
import { XdogCommand } from '../base-command.js';
import { withGateway } from './_lib/gateway.js';
import { renderWorkers } from './_lib/render.js';

export default class ClawWorkers extends XdogCommand {
  static override summary = 'List the gateway workers sharing the claw store, their groups and lease expiries';
  static override description = `Asks the gateway this machine's runtime directory names (workers.list); when none runs there, reads the store the config file names directly.
A worker is "alive" while its heartbeat is younger than claw.lease_seconds, else "stale"; groups no live lease holds are listed as unowned.`;
  static override enableJsonFlag = true;
  static override examples = ['<%= config.bin %> claw workers', '<%= config.bin %> claw workers --json | jq ".workers[].groups"'];

  async run(): Promise<WorkersReport> {
    const { flags } = await this.parse(ClawWorkers);
    const report = await withGateway(async (gateway) => {
      if (!gateway.hello.capabilities.includes('workers:1')) throw new XdogError(ErrorCodes.UNSUPPORTED, 'the running gateway is too old to list workers', { hint: 'restart it with this xdog version' });
      return (await gateway.call('workers.list', {})) as WorkersReport;
    }).catch(async (error: unknown) => {
      if (!XdogError.is(error, ErrorCodes.UNAVAILABLE)) throw error;
      return this.#fromStore(flags.config);
    });
    if (!this.jsonEnabled()) this.log(renderWorkers(report, Date.now()));
    return report;
  }

  /** No gateway here: the store itself says who holds what. */
  async #fromStore(configFile: string | undefined): Promise<WorkersReport> {
    const kernel = await bootKernel({ configFile });
    try {
      const { store } = await openConfiguredStore(kernel);
      return await workersReport(store, { now: kernel.get(ClockToken).now(), leaseMs: leaseMsOf(kernel.config), configured: Object.keys(kernel.config.claw?.groups ?? {}), self: null });
    } finally {
      await kernel.close();
    }
  }
}
