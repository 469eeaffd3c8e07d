/**
 * The claw gateway plugin: the daemon that owns groups and their sessions
 * and serves clients over a Unix socket (docs/claw.md, docs/protocol.md).
 * Selecting the plugin starts nothing; `runGatewayForeground()` (what
 * `xdog claw gateway run` calls) or `Gateway.start()` does.
 */
import { definePlugin } from '../../core/index.js';

export { Gateway, leaseMsOf, resolveWorkspace, type GatewayOptions } from './gateway.js';
export { workersReport } from './workers-report.js';
export { planShare, type ShareInput, type SharePlan } from './worker-pool.js';
export { GroupRuntime, selectTools, type ModelCatalog, type ControlGuard, type ControlKind, type ControlRefusal, type RunObserver, type SystemInput, type SystemRunResult } from './group-runtime.js';
export { CLAW_SESSION_TOOL_CTX, ClawGroupToken, GatewayServiceContribution, followGroups, gatewayMethod, type GroupFollower, type ClawGroupContext, type GatewayHost, type GatewayMethod, type GatewayService, type MethodConnection } from './services.js';
export { READY_MESSAGE, runGatewayForeground, runningGatewayPid, type ForegroundOptions } from './foreground.js';
export { connectGateway, type ConnectOptions, type GatewayConnection } from './client.js';
export { offersUploads, prepareImages, type InputImage } from './upload-client.js';
export { GroupJobs } from './group-jobs.js';
export { jobIdOf, openGroupJobQueue, pgConnectionOf, type GroupJob, type GroupJobHandler, type GroupJobQueue, type GroupJobRequest, type PgConnection, type SendOptions, type SendOutcome } from './job-queue.js';
export { gatewayLocations, type GatewayLocations } from './locations.js';
export { openConfiguredStore, type OpenedStore } from './store.js';
export { TRANSCRIPT_FORMAT, TRANSCRIPT_VERSION } from './transcript.js';
export { toWireEvent, type WireDelta, type WireEvent } from './wire-event.js';
export { assertSpendAllowed, budgetExceeded, spendRefusal, tellGroup } from './spend.js';
export { CLAW_TURN_WRITES_TOOL_CTX, TurnWrites, turnWritesOf, turnWritesOfAgent, type TurnWrite } from './turn-writes.js';
export { isMemoryFlushTool } from './memory-flush.js';
export * from './protocol.js';

export default definePlugin({
  name: 'claw-gateway',
  provides: {},
});
