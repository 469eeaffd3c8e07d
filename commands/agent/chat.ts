import path from 'node:path';
import { Args, Flags } from '@oclif/core';
import { configDir } from '../../core/paths.js';
import { ErrorCodes, LIMITS, SkillRepo, modelRegistryFor, ToolRepo, XdogError, openInstalledCapabilities, type CapabilityAssembly, type RunResult } from '../../core/index.js';
import { instrumentAgent } from '../../plugins/telemetry/index.js';
import { MemoryChildRuntime, ParentContexts, createAgentTool, createSdkChildHost, parseChildPresets } from '../../plugins/children/index.js';
import { connectMcpServer, mcpRegistryOf } from '../../plugins/mcp/index.js';
import { KernelTodosToken } from '../../plugins/todos/index.js';
import { MemoryAccessScope, tapReadOnlyGate } from '../../plugins/access/index.js';
import { extensionHostOf, extensionToolsOf, localControl, syncExtensionTools } from '../../plugins/extensions/index.js';
import { XdogCommand } from '../base-command.js';
import type { TtyApprovals } from './_lib/approval-prompt.js';
import type { TtyElicitation } from './_lib/elicitation-prompt.js';
import { EventRenderer, processOutput, terminalOutput } from './_lib/render.js';
import { checkThinking, openChatSession, workingDirectory } from './_lib/session.js';
import { readStdin } from './_lib/read-stdin.js';
import { parseToolCtx } from './_lib/tool-ctx.js';

export default class AgentChat extends XdogCommand {
  static override summary = 'Chat with a model: one-shot with a prompt, interactive on a TTY without one';
  static override description = `The answer streams to stdout; tool activity, retries and errors go to stderr.
With --json every agent event is one JSON line on stdout (for scripts).
Without --no-tools the agent gets the built-in tools (bash, read, write, edit, ls, grep, find, current_time, web_search and embed when configured), the agent tool for read-only child agents (docs/children.md) and the installed capabilities (flow, with the read-only skill tool). --sandbox read-only or workspace-write runs bash, the file tools, MCP stdio servers and extension workers under bubblewrap (docs/sandbox.md); the default is the config's sandbox: (off when unset).
Exit codes: 0 done, 1 model or tool failure, 2 usage error.`;
  static override enableJsonFlag = true;
  // ignoreStdin everywhere: oclif would otherwise read stdin for a missing argument, without a bound and
  // dropping what arrives after its 10 ms window; a piped prompt is read by readStdinPrompt(), bounded.
  static override args = {
    model: Args.string({ ignoreStdin: true, description: 'provider/model, e.g. openai/gpt-4.1 (see xdog agent models)', required: true }),
    prompt: Args.string({ ignoreStdin: true, description: 'the prompt; without it: interactive on a TTY, else read from stdin' }),
  };
  static override flags = {
    tools: Flags.boolean({ description: 'give the agent the built-in tools (--no-tools: no tools and no capability startup)', default: true, allowNo: true }),
    'tool-ctx': Flags.string({ description: 'tool context: a JSON object or @file.json (does not enable submit_result)' }),
    system: Flags.string({ description: 'system prompt' }),
    thinking: Flags.string({ description: 'reasoning effort, one the model declares (e.g. low, medium, high)' }),
    cwd: Flags.string({ description: 'working directory for tools (default: the current directory)' }),
    sandbox: Flags.string({ description: 'OS sandbox of the tools: off, read-only or workspace-write (network stays as sandbox: in the config says, default off)', options: ['off', 'read-only', 'workspace-write'] }),
    session: Flags.string({ description: 'keep this chat under NAME (or resume the saved chat with that name or ID): saved after each run, 0600, under the config dir; without it nothing is written' }),
    mcp: Flags.string({ description: 'connect this server from mcp_servers and give its tools to the agent (repeatable; allow_tools still decides)', multiple: true, multipleNonGreedy: true }),
  };
  static override examples = [
    '<%= config.bin %> agent chat openai/gpt-4.1 "Summarise README.md"',
    '<%= config.bin %> agent chat anthropic/claude-sonnet-4-6 --no-tools "Explain this runtime"',
    '<%= config.bin %> agent chat local/qwen3 --json "list the files" | jq -c .type',
    'XDOG_FAUX_SCRIPT=script.json <%= config.bin %> agent chat faux/demo "hi"',
  ];

  async run(): Promise<void> {
    const { args, flags } = await this.parse(AgentChat);
    const cwd = workingDirectory(flags.cwd);
    const toolCtx = parseToolCtx(flags['tool-ctx'], cwd);
    const interactive = args.prompt === undefined && process.stdin.isTTY === true && !this.jsonEnabled();
    const prompt = args.prompt ?? (interactive ? undefined : await readStdinPrompt());

    const session = await openChatSession({ configFile: flags.config, cwd, tools: flags.tools, sandbox: flags.sandbox as 'off' | 'read-only' | 'workspace-write' | undefined });
    let capabilities: CapabilityAssembly | undefined;
    try {
      // Enabled extensions start now: the first turn is about to run, and their models and tools must resolve.
      await extensionHostOf(session.kernel)?.activateAll();
      const model = session.resolve(args.model);
      checkThinking(flags.thinking, model);
      const output = this.jsonEnabled() ? processOutput : terminalOutput;
      // An MCP server's elicitation is asked on the TTY; without one it is declined with that reason.
      const elicitation: TtyElicitation | undefined = process.stdin.isTTY === true && !this.jsonEnabled() ? new (await import('./_lib/elicitation-prompt.js')).TtyElicitation(output, prompt === undefined) : undefined;
      if (elicitation) mcpRegistryOf(session.kernel)?.setHandlers({ elicit: elicitation.request });
      for (const server of flags.mcp ?? []) await connectMcpServer(session.kernel, server);
      const renderer = new EventRenderer(output, this.jsonEnabled());
      const streamFn = session.streamFn;
      // Capabilities open unless --no-tools (the config's `capabilities:`, else every installed one that starts no daemon); their tools and skills join the built-in ones.
      capabilities = flags.tools
        ? await openInstalledCapabilities(session.kernel, { scope: 'application', id: 'application', cwd, runtime: { streamFn, model: model.qualified } }, { toolRepo: new ToolRepo(session.tools) }, session.kernel.config.capabilities)
        : undefined;
      const skills = capabilities?.composeSkills(SkillRepo.fromConfig(session.kernel.config, cwd));
      const baseTools = capabilities ? capabilities.composeTools(undefined, skills) : session.tools;
      // The `agent` tool: children in memory, built from the parent's tools (never more), ended with the chat; presets from child_presets.
      const children = flags.tools ? new MemoryChildRuntime(createSdkChildHost({ streamFn, model: model.qualified, parentTools: () => baseTools, presets: parseChildPresets(session.kernel.config.child_presets), onCreated: (child) => instrumentAgent(session.kernel, child) })) : undefined;
      const contexts = new ParentContexts();
      const todos = session.kernel.isBound(KernelTodosToken) ? session.kernel.get(KernelTodosToken) : undefined;
      const agentTool = children ? createAgentTool(children, { contextOf: (args) => contexts.of(args), ...(todos ? { todosOf: async () => (await todos.read()).items } : {}) }) : undefined;
      // Asked tool calls (approvals in the config) are asked on the TTY; without one an ask is a denial.
      // The TTY prompt and the interactive loop load only when used (a one-shot chat on a pipe never runs them).
      const approvals: TtyApprovals | undefined = process.stdin.isTTY === true && !this.jsonEnabled() ? new (await import('./_lib/approval-prompt.js')).TtyApprovals(output, prompt === undefined) : undefined;
      const agent = session.kernel.createAgent(
        streamFn,
        { model: model.qualified, systemPrompt: flags.system, thinking: flags.thinking },
        { tools: [...baseTools, ...(agentTool ? [agentTool] : []), ...(flags.tools ? extensionToolsOf(session.kernel) : [])], toolCtx, skills, ...(approvals ? { approvals } : {}) },
      );
      if (agentTool) contexts.follow(agent, agentTool);
      // The read-only scope (/readonly) is the host's: only the user changes it; a kept chat keeps it.
      const access = new MemoryAccessScope();
      tapReadOnlyGate(agent.hooks, access, () => mcpRegistryOf(session.kernel));
      try {
        const saved = flags.session === undefined ? undefined : await (await import('./_lib/resume-chat.js')).resumeChat(flags.session, agent, access, output);
        if (prompt === undefined) {
          const host = extensionHostOf(session.kernel);
          // After a reload or unload the agent gets the tools the extensions registered now (between runs).
          const control = host && localControl(host, () => flags.tools && syncExtensionTools(agent, host, session.kernel.config.extension_allow_tools ?? []));
          const { runInteractive } = await import('./_lib/interactive.js');
          const { DraftFile } = await import('../../core/draft-file.js');
          const chatHost = { agent, registry: modelRegistryFor(session.kernel), cwd, access, children, draft: new DraftFile(draftFile(saved?.header.id)), saved, setLine: () => {} };
          return await runInteractive(agent, renderer, output, process.stdin, control, approvals, elicitation, chatHost);
        }
        const stream = agent.prompt(prompt);
        const onSigint = (): void => agent.abort();
        process.once('SIGINT', onSigint);
        try {
          for await (const event of stream) renderer.event(event);
          const result = await stream.result();
          if (saved) saved.header = await saved.store.save(saved.header, agent);
          failOn(result);
        } finally {
          process.removeListener('SIGINT', onSigint);
        }
      } finally {
        await children?.closeAll();
        await agent.close();
      }
    } finally {
      await capabilities?.close();
      await session.close();
    }
  }
}

/** The chat's draft file: one per kept chat, one for the chats that are not kept. */
function draftFile(id: string | undefined): string {
  return path.join(configDir(), 'chat', 'drafts', `${id ?? 'default'}.txt`);
}

/** A prompt piped on stdin (one-shot without a TTY). */
async function readStdinPrompt(): Promise<string> {
  const text = process.stdin.isTTY ? '' : (await readStdin(LIMITS.messageTextBytes, 'the prompt')).trim();
  if (!text) throw new XdogError(ErrorCodes.USAGE, 'no prompt given', { hint: 'pass a PROMPT argument, pipe one on stdin, or run on a TTY for an interactive chat' });
  return text;
}

/** Maps a finished run to the exit code: 0 done, 1 for a model failure or abort. */
function failOn(result: RunResult): void {
  if (result.status === 'error') throw new XdogError(ErrorCodes.MODEL_FAILED, result.errorMessage ?? 'the model failed');
  if (result.status === 'aborted') throw new XdogError(ErrorCodes.ABORTED, 'the run was aborted');
  if (result.status === 'rejected') throw new XdogError(ErrorCodes.INVALID_ARGUMENT, result.errorMessage ?? 'the prompt was rejected');
}
