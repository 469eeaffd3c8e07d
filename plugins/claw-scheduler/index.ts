/**
 * The claw scheduler plugin: two gateway services. `scheduler` runs jobs
 * from the store (cron in a time zone, fixed intervals, one-shots) as system
 * inputs, with `schedule.*` methods for the CLI; `resets` replaces a group's
 * active session daily and/or after idleness, as `claw.groups.<name>.reset`
 * configures. Selecting the plugin starts nothing; the gateway starts the
 * services (docs/automation.md).
 */
import { ContainerModule, definePlugin } from '../../core/index.js';
import { GatewayServiceContribution } from '../claw-gateway/tokens.js';
import { ResetService } from './resets.js';
import { SchedulerService } from './scheduler.js';

export { SCHEDULE_RUN_NOTIFICATION, SchedulerService } from './scheduler.js';
export { ResetService, SESSION_RESET_NOTIFICATION } from './resets.js';
export { ScheduleParams, type ScheduleMethod, type ScheduleParamsOf } from './methods.js';
export type { Job, JobRun, JobTarget, RunStatus, RunTrigger } from './jobs.js';
export type { JobTiming } from './timing.js';

export default definePlugin({
  name: 'claw-scheduler',
  provides: {},
  module: new ContainerModule(({ bind }) => {
    bind(GatewayServiceContribution).toDynamicValue(() => new SchedulerService());
    bind(GatewayServiceContribution).toDynamicValue(() => new ResetService());
  }),
});
