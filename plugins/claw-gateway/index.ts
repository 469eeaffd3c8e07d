/**
 * The claw gateway plugin: the daemon that owns groups and their sessions
 * and serves clients over a Unix socket (docs/claw.md, docs/protocol.md).
 * Selecting the plugin starts nothing; `runGatewayForeground()` (what
 * `xdog claw gateway run` calls) or `Gateway.start()` does.
 */
export { Gateway, leaseMsOf, resolveWorkspace, type GatewayOptions } from './gateway.js';
export { workersReport } from './workers-report.js';
export { planShare, type ShareInput, type SharePlan } from './worker-pool.js';
export { GroupRuntime, selectTools } from './group-runtime.js';
export { READY_MESSAGE, runGatewayForeground, runningGatewayPid, type ForegroundOptions } from './foreground.js';
export { connectGateway, type ConnectOptions, type GatewayConnection } from './client.js';
export { offersUploads, prepareImages, type InputImage } from './upload-client.js';
export { jobIdOf, openGroupJobQueue, pgConnectionOf, type PgConnection } from './job-queue.js';
export { openConfiguredStore, type OpenedStore } from './store.js';
export { TRANSCRIPT_FORMAT, TRANSCRIPT_VERSION } from './transcript.js';
export * from './tokens.js';
export { toWireEvent, type WireDelta, type WireEvent } from './wire-event.js';
export { default } from './plugin.js';
