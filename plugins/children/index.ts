/**
 * Child agents: the SDK contracts (the `agent` tool's arguments, child
 * configs, caps and presets), an in-memory runtime for hosts without a store,
 * a host for SDK-built agents, and in claw the durable runtime behind both
 * the `agents.*` methods and the group model's own `agent` tool
 * (docs/children.md). Inert: nothing runs until a child is spawned.
 */
import { ContainerModule, ToolContribution, definePlugin } from '../../core/index.js';
import { CLAW_SESSION_TOOL_CTX, ClawGroupToken, GatewayServiceContribution } from '../claw-gateway/tokens.js';
import { loadSessionTodos } from '../todos/index.js';
import { ParentContexts, createAgentTool } from './agent-tool.js';
import { GroupChildren, GroupChildrenToken } from './group-children.js';
import { createChildrenService } from './service.js';

export { AgentToolArgsSchema, ChildConfigSchema, PARENT_ONLY_TOOLS, inheritedContext, parseChildPresets, resolveChildSpec, type AgentToolArgs, type ChildConfig, type ChildPresets, type ChildSpec } from './contracts.js';
export { MemoryChildRuntime, type ChildHost, type ChildObserver, type ChildWiring, type ChildRecord, type ChildStatus, type SpawnOptions } from './memory-runtime.js';
export { ParentContexts, createAgentTool, type AgentToolOptions, type ChildRuntime } from './agent-tool.js';
export { DurableChildRuntime } from './durable-runtime.js';
export { CHILD_INPUT_FORMAT, CHILD_INPUT_VERSION, CHILD_SOURCE_FORMAT, CHILD_SOURCE_VERSION, parseChildInput, parseChildSource, type ChildInputSource, type ChildSource } from './child-source.js';
export { ChildRecordStore, TRANSCRIPT_CHUNK_CHARS, chunkText, type ChildCompactionArchive, type ChildEnd, type ChildInputRecord, type ChildInputStatus, type DurableChildRecord, type DurableChildStatus } from './child-records.js';
export { childCompaction } from './compaction.js';
export { childPrompt, childTools, createSdkChildHost, seedChild, type SdkChildHostOptions } from './chat-host.js';
export { GroupChildren, GroupChildrenToken } from './group-children.js';
export { createGroupChildHost, type GroupChildHostOptions } from './group-host.js';

export { createChildrenService } from './service.js';

export default definePlugin({
  name: 'children',
  provides: { tools: ['agent'] },
  // The gateway runs durable children for its groups (agents.* methods); elsewhere the plugin stays inert.
  module: new ContainerModule(({ bind }) => {
    bind(GatewayServiceContribution).toConstantValue(createChildrenService());
  }),
  apply(kernel) {
    // A group's model delegates with the `agent` tool; a plain kernel (xdog agent chat builds its own tool) gets nothing here.
    if (!kernel.isBound(ClawGroupToken)) return;
    const slot = new GroupChildren();
    kernel.container.bind(GroupChildrenToken).toConstantValue(slot);
    const contexts = new ParentContexts();
    const parentSessionOf = (toolCtx: Record<string, unknown>): string | null => (typeof toolCtx[CLAW_SESSION_TOOL_CTX] === 'string' ? toolCtx[CLAW_SESSION_TOOL_CTX] : null);
    const group = kernel.get(ClawGroupToken);
    const tool = createAgentTool(() => slot.runtime(), {
      contextOf: (args) => contexts.of(args),
      parentSessionOf,
      todosOf: async (toolCtx) => {
        const sessionId = parentSessionOf(toolCtx);
        return sessionId ? (await loadSessionTodos(group.store, sessionId)).items : [];
      },
    });
    kernel.container.bind(ToolContribution).toConstantValue(tool);
    kernel.hooks.agentCreated.tap('children', (agent) => void contexts.follow(agent, tool));
  },
});
