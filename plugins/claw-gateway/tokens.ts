/**
 * The gateway plugin's light public face: the DI tokens, the service contract,
 * the protocol and the tool-context keys that other plugins need when they
 * load. It imports neither the gateway nor the store (so no typeorm), which is
 * what keeps `xdog agent chat` from loading claw at all (docs/architecture.md,
 * "Import cost"). `index.ts` re-exports all of it; another plugin may import
 * this file or index.ts, nothing else of this folder.
 */
export { CLAW_SESSION_TOOL_CTX, ClawGroupToken, GatewayServiceContribution, followGroups, gatewayMethod, type GroupFollower, type ClawGroupContext, type GatewayHost, type GatewayMethod, type GatewayService, type MethodConnection } from './services.js';
export type { RpcJob } from '../../core/rpc/index.js';
export { gatewayLocations, type GatewayLocations } from './locations.js';
export { isMemoryFlushTool } from './memory-flush.js';
export { assertSpendAllowed, budgetExceeded, spendRefusal, tellGroup } from './spend.js';
export type { Wakeups, WakeupTargets } from './wakeups.js';
export { CLAW_TURN_WRITES_TOOL_CTX, TurnWrites, turnWritesOf, turnWritesOfAgent, type TurnWrite } from './turn-writes.js';
export * from './protocol.js';
export { chunksOf, transcriptChunks, transcriptDiffers, type ChunkCall } from './chunked-client.js';
export { GroupJobs } from './group-jobs.js';
export type { GroupJob, GroupJobHandler, GroupJobQueue, GroupJobRequest, SendOptions, SendOutcome } from './job-queue.js';
export type { GroupRuntime, ModelCatalog, ControlGuard, ControlKind, ControlRefusal, RunObserver, SystemInput, SystemRunResult } from './group-runtime.js';
