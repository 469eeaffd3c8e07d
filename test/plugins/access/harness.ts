/**
 * An in-process claw group for policy tests: a real group kernel (built-in
 * tools, MCP with server-filesystem, the access plugin, an extension plugin
 * with a writing tool and a pre-hook that rewrites arguments), a real
 * SQLite store bound as ClawGroupToken, and a faux model that makes whatever
 * tool call the prompt spells out as JSON. Attempts run in the group's agent,
 * or in a child that inherits the group's gates (`agents start --inherit`).
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  ContainerModule,
  ToolContribution,
  createKernel,
  definePlugin,
  tapHook,
  type Agent,
  type AgentTool,
  type Kernel,
  type Message,
  type ToolResultMessage,
  type XdogPlugin,
} from '../../../core/index.js';
import accessPlugin from '../../../plugins/access/index.js';
import { ChildRecordStore, DurableChildRuntime, createGroupChildHost, resolveChildSpec } from '../../../plugins/children/index.js';
import { ClawGroupToken, type ClawGroupContext } from '../../../plugins/claw-gateway/index.js';
import { createFauxStreamFn } from '../../../plugins/faux/index.js';
import mcpPlugin, { McpRegistryToken } from '../../../plugins/mcp/index.js';
import toolsPlugin from '../../../plugins/tools/index.js';
import { FILESYSTEM } from '../mcp/support.js';
import { openClawDataSource } from '../../../entities/index.js';
import { openSessionStore, type SessionStore } from '../../../plugins/sessions/index.js';
import type { DataSource } from 'typeorm';
import { tempDir } from '../../support/temp.js';

/** A string argument containing it is rewritten by the extension's pre-hook. */
export const REWRITE_MARK = 'REWRITE_ME';

export interface ToolAttempt {
  name: string;
  arguments: Record<string, unknown>;
}

let touchDir = '';
const touchTool: AgentTool = {
  name: 'touch',
  description: 'creates a file',
  parameters: { type: 'object', properties: { file: { type: 'string' } }, required: ['file'] },
  async execute(args: { file: string }) {
    fs.writeFileSync(path.join(touchDir, args.file), 'touched');
    return { content: [{ type: 'text', text: 'touched' }] };
  },
};

/** A third-party plugin: a tool that writes a file, and a pre-hook that rewrites the args of calls marked `rewrite`. */
const extensionPlugin: XdogPlugin = definePlugin({
  name: 'test-extension',
  provides: { tools: ['touch'] },
  tools: [() => touchTool],
  apply(kernel) {
    kernel.hooks.agentCreated.tap('test-extension', (agent) => {
      tapHook(agent.hooks.beforeToolCall, 'rewrite', (call: { args: Record<string, unknown> }) => {
        // A pre-hook that makes a marked call look harmless; the gate must judge what will really run.
        for (const [key, value] of Object.entries(call.args)) {
          if (typeof value === 'string' && value.includes(REWRITE_MARK)) call.args[key] = key === 'command' ? 'ls' : value.replace(REWRITE_MARK, '');
        }
        return undefined;
      });
    });
  },
});

export interface PolicyGroup {
  kernel: Kernel;
  store: SessionStore;
  dataSource: DataSource;
  workspace: string;
  group: string;
  sessionId: string;
  /** Runs one prompt whose model makes `attempt`; returns the tool result. */
  attempt(attempt: ToolAttempt): Promise<ToolResultMessage>;
  /** Runs `attempt` in a child of the group with access "inherit" (the group's tools under its gates); returns the tool result. */
  attemptAsChild(attempt: ToolAttempt): Promise<ToolResultMessage>;
  close(): Promise<void>;
}

export async function openPolicyGroup(extraPlugins: XdogPlugin[] = []): Promise<PolicyGroup> {
  const workspace = fs.realpathSync(tempDir('xdog-policy-'));
  touchDir = workspace;
  fs.writeFileSync(path.join(workspace, 'notes.txt'), 'alpha\nneedle here\n');
  fs.mkdirSync(path.join(workspace, 'src'));
  fs.writeFileSync(path.join(workspace, 'src', 'main.ts'), 'export const needle = 1;\n');
  // Opened here, not with the sessions helpers: those close stores after each test, these live for a whole suite.
  const dataSource = await openClawDataSource({ type: 'sqlite', file: path.join(tempDir('xdog-policy-store-'), 'claw.db') });
  const clock = { now: () => Date.now() };
  const store = openSessionStore(dataSource, { clock });
  const group = 'main';
  await store.ensureGroup(group);
  const session = await store.createSession(group, { model: 'faux/test', activate: true }, { expectedActiveSessionId: null });
  const context: ClawGroupContext = { name: group, workspace, store, dataSource, clock };
  const config = {
    mcp_servers: { fs: { command: process.execPath, args: [FILESYSTEM, workspace], timeout: 20, allow_tools: true, read_only_tools: ['read_text_file', 'list_directory'] } },
  };
  const kernel = await createKernel({
    plugins: [toolsPlugin, mcpPlugin, accessPlugin, extensionPlugin, ...extraPlugins],
    config: config as never,
    cwd: workspace,
    overrides: [new ContainerModule(({ bind }) => void bind(ClawGroupToken).toConstantValue(context))],
  });
  await kernel.open();
  await kernel.get(McpRegistryToken).connect('fs');
  const stream = createFauxStreamFn({
    responses: (request) => {
      const last = request.messages.at(-1)!;
      if (last.role === 'toolResult') return { text: 'done' };
      const text = typeof last.content === 'string' ? last.content : last.content.map((part) => ('text' in part ? part.text : '')).join('');
      return { toolCalls: [JSON.parse(text) as ToolAttempt] };
    },
  });
  const agents: Agent[] = [];
  const records = new ChildRecordStore({ store, clock });
  const children = new DurableChildRuntime({
    host: createGroupChildHost({ kernel, streamFn: stream, tools: () => kernel.getAll(ToolContribution), model: () => 'faux/test', presets: {} }),
    records,
    group,
  });
  const toolResultOf = (messages: readonly Message[], attempt: ToolAttempt): ToolResultMessage => {
    const result = messages.find((message): message is ToolResultMessage => message.role === 'toolResult');
    if (!result) throw new Error(`no tool result for ${JSON.stringify(attempt)}`);
    return result;
  };
  return {
    kernel,
    store,
    dataSource,
    workspace,
    group,
    sessionId: session.id,
    async attempt(attempt) {
      const agent = kernel.createAgent(stream, { model: 'faux/test' }, { tools: kernel.getAll(ToolContribution) });
      agents.push(agent);
      await agent.prompt(JSON.stringify(attempt)).result();
      return toolResultOf(agent.messages, attempt);
    },
    async attemptAsChild(attempt) {
      const child = await children.spawn(resolveChildSpec({ action: 'spawn', task: JSON.stringify(attempt), access: 'inherit' }, {}));
      await children.wait([child.id]);
      const transcript = await records.transcript(group, child.id);
      await children.close(child.id);
      return toolResultOf(transcript, attempt);
    },
    async close() {
      await children.closeAll('cancelled: the test ended');
      for (const agent of agents) await agent.close();
      await kernel.close();
      await dataSource.destroy();
    },
  };
}

export function textOf(result: ToolResultMessage): string {
  return result.content.map((part) => ('text' in part ? part.text : '')).join('');
}
