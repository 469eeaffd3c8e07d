/**
 * The run log service: records every run of every group this gateway (or
 * worker) serves, from the `runEnded` hook, and answers `runs.list` from the
 * shared store, so any worker lists the runs of all of them. A write never
 * blocks a group: the hook only queues it (bounded); a failed write is
 * logged, the run itself is unaffected.
 */
import os from 'node:os';
import { z } from 'zod';
import { ClawGroupNameSchema, ErrorCodes, XdogError, describeError, type RunEndedInfo } from '../../core/index.js';
import { LIMITS } from '../../core/limits.js';
import { gatewayMethod, type GatewayHost, type GatewayService } from '../claw-gateway/tokens.js';
import { RunLog } from './run-log.js';

/** The capability flag the gateway adds to `hello` while this service runs. */
export const RUNS_CAPABILITY = 'runs:1';

export const RunsListParams = z
  .object({
    /** Only this group's runs; default: every group's. */
    group: ClawGroupNameSchema.optional(),
    limit: z.number().int().positive().max(LIMITS.clawRunLogPage).optional(),
    /** Only runs older than this id (the next page). */
    beforeId: z.number().int().positive().optional(),
  })
  .strict();

/** The default page size of `runs.list`. */
export const DEFAULT_RUNS_PAGE = 50;

/** Who runs this gateway's groups, as the run log records it. */
function ownerId(): string {
  return `${os.hostname()}:${process.pid}`;
}

/** A fresh run log service. */
export function createRunsService(): GatewayService {
  let host: GatewayHost | undefined;
  let log: RunLog | undefined;
  const pending = new Set<Promise<unknown>>();
  const owner = ownerId();

  const record = (run: RunEndedInfo): void => {
    if (!log || !host) return;
    if (pending.size >= LIMITS.clawRunLogPendingWrites) {
      host.log(`run log: ${pending.size} writes are waiting (limit clawRunLogPendingWrites); run ${run.inputId} of group ${run.group} is not recorded`);
      return;
    }
    const [runLog, logLine] = [log, host.log.bind(host)];
    const write = runLog
      .record(run, owner)
      .catch((error: unknown) => logLine(`run log: run ${run.inputId} of group ${run.group} is not recorded: ${describeError(error)}`))
      .finally(() => pending.delete(write));
    pending.add(write);
  };

  return {
    name: 'runs',
    capabilities: [RUNS_CAPABILITY],
    methods: {
      'runs.list': gatewayMethod(RunsListParams, async (params) => {
        if (!log || !host) throw new XdogError(ErrorCodes.INVALID_STATE, 'the run log service has not started');
        if (params.group !== undefined && !host.kernel.config.claw?.groups?.[params.group]) {
          throw new XdogError(ErrorCodes.NOT_FOUND, `no group named "${params.group}" is configured`, { hint: 'see the groups with `xdog claw status`' });
        }
        return { runs: await log.list({ group: params.group, limit: params.limit ?? DEFAULT_RUNS_PAGE, beforeId: params.beforeId }) };
      }),
    },
    start(gatewayHost) {
      host = gatewayHost;
      log = new RunLog(gatewayHost.store);
      gatewayHost.hooks.runEnded.tap('runs', record);
    },
    async stop() {
      // The runs that ended before the stop are written before the store closes.
      await Promise.all([...pending]);
      host = log = undefined;
    },
  };
}
