/**
 * The `claw-runs` plugin: the run log. A gateway service records every run
 * of every group (group, session, input, where it came from, who ran it,
 * start and end times, status) in the claw store's `claw_runs` table, and
 * answers `runs.list` (`xdog claw runs`). With several workers on one store
 * it is the one place to see which worker ran what, and when. Selecting the
 * plugin starts nothing; the gateway starts the service.
 */
import { ContainerModule, definePlugin } from '../../core/index.js';
import { GatewayServiceContribution } from '../claw-gateway/tokens.js';
import { createRunsService } from './service.js';

export { DEFAULT_RUNS_PAGE, RUNS_CAPABILITY, RunsListParams, createRunsService } from './service.js';
export { RunLog, describeSource, type RunLogRetention, type RunRecord, type RunSource } from './run-log.js';

export default definePlugin({
  name: 'claw-runs',
  provides: {},
  module: new ContainerModule(({ bind }) => {
    bind(GatewayServiceContribution).toDynamicValue(() => createRunsService());
  }),
});
