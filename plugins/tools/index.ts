/**
 * The built-in tools plugin: bash, read, write, edit, ls, grep, find and
 * current_time, all relative to the kernel's working directory, plus
 * web_search and embed when the config names a backend or an embeddings provider. The host's beforeToolCall
 * policy decides what may run; the kernel's `sandbox:` policy (docs/sandbox.md)
 * bounds what bash and the file tools can touch.
 */
import {
  ClockToken,
  Config,
  ContainerModule,
  ToolContribution,
  createEmbedTool,
  WorkingDirectory,
  definePlugin,
  type AgentTool,
  type Clock,
  type XdogConfig,
} from '../../core/index.js';
import { kernelSandboxConfig, resolvePolicy, type SandboxPolicy } from '../sandbox/index.js';
import { createBashTool } from './bash.js';
import { createCurrentTimeTool } from './current-time.js';
import { createEditTool, createLsTool, createReadTool, createWriteTool } from './file-tools.js';
import { createFindTool, createGrepTool } from './search-tools.js';
import { createWebSearchTool } from './web-search.js';
import { webSearchBackendFrom } from './web-search-backends.js';
import { embedFunctionFrom } from './embed.js';
import { credentialStoreOf } from '../providers-shared/index.js';

export { createBashTool, type BashDetails } from './bash.js';
export { createCurrentTimeTool } from './current-time.js';
export { createEditTool, createLsTool, createReadTool, createWriteTool } from './file-tools.js';
export { createFindTool, createGrepTool } from './search-tools.js';
export { createWebSearchTool, type WebSearchBackend, type WebSearchResult } from './web-search.js';
export { BraveBackend, SearxngBackend, TavilyBackend, webSearchBackendFrom } from './web-search-backends.js';
export { embedFunctionFrom } from './embed.js';
export { compileGlob, IGNORED_DIRS } from './walk.js';
export { isLocalReadOnlyTool, markReadOnly } from './read-only.js';

type ToolFactory = (options: { cwd: string; clock?: Clock; sandbox?: SandboxPolicy }) => AgentTool;

const FACTORIES: readonly ToolFactory[] = [
  createBashTool,
  createReadTool,
  createWriteTool,
  createEditTool,
  createLsTool,
  createGrepTool,
  createFindTool,
  createCurrentTimeTool,
];

/** Fresh instances of the default tools (bash, read, write, edit, ls, grep, find, current_time) for one working directory. */
export function createBuiltinTools(options: { cwd: string; clock?: Clock; sandbox?: SandboxPolicy }): AgentTool[] {
  return FACTORIES.map((factory) => factory(options));
}

export default definePlugin({
  name: 'tools',
  provides: { tools: ['bash', 'read', 'write', 'edit', 'ls', 'grep', 'find', 'current_time', 'web_search', 'embed'] },
  module: new ContainerModule(({ bind }) => {
    for (const factory of FACTORIES) {
      bind(ToolContribution).toDynamicValue((context) => {
        const cwd = context.get<string>(WorkingDirectory);
        return factory({ cwd, clock: context.get(ClockToken), sandbox: resolvePolicy(kernelSandboxConfig(context.get<XdogConfig>(Config)), cwd) });
      });
    }
  }),
  apply(kernel) {
    // web_search exists only when the config names a backend, and only the kernel knows the config;
    // binding it here is still inert (no request is made until a model calls the tool).
    const backend = webSearchBackendFrom(kernel.config);
    if (backend) kernel.container.bind(ToolContribution).toConstantValue(createWebSearchTool(backend));
    // embed likewise, only with an `embed:` section; a bad one fails the boot with its fix.
    const embed = embedFunctionFrom(kernel.config, credentialStoreOf(kernel.container));
    if (embed) kernel.container.bind(ToolContribution).toConstantValue(createEmbedTool(embed));
  },
});
