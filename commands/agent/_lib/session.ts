/**
 * Opens what `xdog agent chat` and `xdog agent acp` need: a kernel with the
 * installed plugins (without tool and capability plugins under --no-tools),
 * the model resolved through the registry, and the built-in tools.
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  ErrorCodes,
  ToolContribution,
  XdogError,
  bootKernel,
  defaultTools,
  modelRegistryFor,
  thinkingProblem,
  type AgentTool,
  type DiscoveredPlugin,
  type Kernel,
  type ModelStreamFn,
  type ResolvedModel,
} from '../../../core/index.js';

export interface SessionOptions {
  configFile?: string;
  cwd: string;
  /** False: no tool plugins and no capability plugins are loaded or opened. */
  tools: boolean;
}

/** An open kernel plus the model and tools a chat uses. */
export interface ChatSession {
  kernel: Kernel;
  tools: AgentTool[];
  resolve(model: string): ResolvedModel;
  /** The registry's stream function; provider retries reach the agent as `model_retry` events. */
  streamFn: ModelStreamFn;
  close(): Promise<void>;
}

/** Plugins that start tools or capabilities; --no-tools leaves them out entirely. */
function startsToolsOrCapabilities(plugin: DiscoveredPlugin): boolean {
  return plugin.provides.tools.length > 0 || plugin.provides.capabilities.length > 0;
}

/** Checks --cwd and returns it absolute. */
export function workingDirectory(given: string | undefined): string {
  const cwd = path.resolve(given ?? process.cwd());
  if (!fs.statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) {
    throw new XdogError(ErrorCodes.USAGE, `--cwd ${cwd} is not a directory`, { hint: 'pass an existing directory' });
  }
  return cwd;
}

export async function openChatSession(options: SessionOptions): Promise<ChatSession> {
  const kernel = await bootKernel({
    configFile: options.configFile,
    cwd: options.cwd,
    filter: options.tools ? undefined : (plugin) => !startsToolsOrCapabilities(plugin),
  });
  try {
    const registry = modelRegistryFor(kernel);
    return {
      kernel,
      tools: options.tools ? defaultTools(kernel.getAll(ToolContribution)) : [],
      resolve: (model) => registry.resolve(model),
      streamFn: registry.streamFn,
      close: () => kernel.close(),
    };
  } catch (error) {
    await kernel.close();
    throw error;
  }
}

/** Checks --thinking against the levels a listed model declares (an unlisted model gets the level as given). */
export function checkThinking(level: string | undefined, model: ResolvedModel): void {
  if (level === undefined) return;
  const problem = thinkingProblem(level, model);
  if (problem) throw new XdogError(ErrorCodes.USAGE, problem.message, { hint: problem.hint });
}
