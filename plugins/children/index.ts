/**
 * Child agents: the SDK contracts (the `agent` tool's arguments, child
 * configs, caps and presets), an in-memory runtime for hosts without a store,
 * and a host for SDK-built agents (docs/children.md). Inert: nothing runs
 * until a model spawns a child.
 */
import { ContainerModule, definePlugin } from '../../core/index.js';
import { GatewayServiceContribution } from '../claw-gateway/index.js';
import { createChildrenService } from './service.js';

export { AgentToolArgsSchema, ChildConfigSchema, PARENT_ONLY_TOOLS, parseChildPresets, resolveChildSpec, type AgentToolArgs, type ChildConfig, type ChildPresets, type ChildSpec } from './contracts.js';
export { MemoryChildRuntime, type ChildHost, type ChildObserver, type ChildRecord, type ChildStatus } from './memory-runtime.js';
export { createAgentTool } from './agent-tool.js';
export { DurableChildRuntime } from './durable-runtime.js';
export { ChildRecordStore, TRANSCRIPT_CHUNK_CHARS, chunkText, type ChildEnd, type ChildInputRecord, type ChildInputStatus, type DurableChildRecord, type DurableChildStatus } from './child-records.js';
export { childPrompt, childTools, createSdkChildHost, type SdkChildHostOptions } from './chat-host.js';

export { createChildrenService } from './service.js';

export default definePlugin({
  name: 'children',
  provides: {},
  // The gateway runs durable children for its groups (agents.* methods); elsewhere the plugin stays inert.
  module: new ContainerModule(({ bind }) => {
    bind(GatewayServiceContribution).toConstantValue(createChildrenService());
  }),
});
