/**
 * `/mcp`: the group's MCP servers from the TUI. Listing, tools, catalogs and
 * previews are reads; connect, refresh and disconnect are controls (an idle
 * group, the session the TUI shows). A resource or prompt reaches the draft
 * only through `/mcp insert`, wrapped in lines that say it is untrusted
 * server text, and it is never sent by itself: the person reads and sends it.
 */
import { ErrorCodes, XdogError } from '../../core/errors.js';
import { readMcpPreview, type GroupMcpServer, type GroupMcpTool } from '../claw-mcp/index.js';
import { draftText, formatDocument, type McpDocument, type McpPromptEntry, type McpResourceEntry, type McpTemplateEntry } from '../mcp/index.js';

/** What `/mcp` needs of the TUI. */
export interface McpCommandHost {
  call(method: string, params: Record<string, unknown>): Promise<any>;
  notice(text: string): void;
  /** The draft in the editor, and replacing it. */
  draft(): string;
  setDraft(text: string): void;
  /** The active-session id the TUI shows (what controls send as expectedSessionId). */
  expectedSessionId(): string | null;
  busy(): boolean;
}

export const MCP_USAGE = '[connect|disconnect|refresh|authorize SERVER | tools [SERVER] | resources SERVER [templates] | prompts SERVER | read SERVER URI | prompt SERVER NAME [JSON] | insert resource SERVER URI | insert prompt SERVER NAME [JSON]]';

const usage = (message: string): XdogError => new XdogError(ErrorCodes.USAGE, message, { hint: `/mcp ${MCP_USAGE}` });

function serverLine(server: GroupMcpServer): string {
  return `${server.id}  ${server.state}  ${server.transport} ${server.target}  tools: ${server.tools}  allow_tools: ${server.allowTools}${server.error ? `  error: ${server.error}` : ''}`;
}

function promptArguments(text: string | undefined): Record<string, string> {
  if (!text) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw usage(`prompt arguments must be a JSON object of strings: ${(error as Error).message}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed) || Object.values(parsed).some((value) => typeof value !== 'string')) throw usage('prompt arguments must be a JSON object of strings');
  return parsed as Record<string, string>;
}

/** The text `/mcp insert` puts in the draft: the document between two lines naming it as untrusted. */
export function untrustedDraft(document: McpDocument): string {
  const what = document.kind === 'resource' ? `resource ${document.uri}` : `prompt ${document.name}`;
  return [`[untrusted MCP ${what} from server ${document.server}; review it before you send it]`, draftText(document), `[end of untrusted MCP ${document.kind}]`].join('\n');
}

/** Runs `/mcp ARGS`. */
export async function runMcpCommand(host: McpCommandHost, args: string): Promise<void> {
  const [verb = 'list', ...words] = args.trim() ? args.trim().split(/\s+/) : [];
  const rest = (skip: number): string | undefined => args.trim().split(/\s+/).slice(skip).join(' ') || undefined;
  const server = words[0];
  const needServer = (): string => {
    if (!server) throw usage(`/mcp ${verb} needs a server id`);
    return server;
  };
  switch (verb) {
    case 'list': {
      const servers = (await host.call('mcp.list', {})) as GroupMcpServer[];
      host.notice(servers.length ? servers.map(serverLine).join('\n') : 'this group lists no MCP servers (claw.groups.G.mcp_servers)');
      return;
    }
    case 'connect':
    case 'disconnect':
    case 'refresh': {
      const id = needServer();
      if (host.busy()) throw new XdogError(ErrorCodes.BUSY, `/mcp ${verb} is blocked while a turn runs`, { hint: 'wait for it to end, or press Esc to abort it' });
      const status = (await host.call(`mcp.${verb}`, { server: id, expectedSessionId: host.expectedSessionId() })) as GroupMcpServer;
      host.notice(`${verb === 'connect' ? 'connected' : verb === 'refresh' ? 'refreshed' : 'disconnected'}: ${serverLine(status)}`);
      return;
    }
    case 'authorize': {
      const answer = (await host.call('mcp.authorize', { server: needServer() })) as { authorizationUrl: string };
      host.notice(`open this URL in a browser to authorize the gateway for MCP server "${server}" (the gateway waits for the answer on its loopback redirect; then /mcp connect ${server}):\n${answer.authorizationUrl}`);
      return;
    }
    case 'tools': {
      const tools = (await host.call('mcp.tools', server ? { server } : {})) as GroupMcpTool[];
      host.notice(tools.length ? tools.map((tool) => `${tool.alias}  ${tool.allowed ? 'allowed' : 'blocked (allow_tools off)'}${tool.readOnly ? '  read-only' : ''}  ${tool.description.split('\n')[0]}`).join('\n') : 'no MCP tools (/mcp connect SERVER first)');
      return;
    }
    case 'resources': {
      const templates = words[1] === 'templates';
      const entries = (await host.call('mcp.resources', { server: needServer(), ...(templates ? { templates } : {}) })) as Array<McpResourceEntry | McpTemplateEntry>;
      host.notice(entries.length ? entries.map((entry) => `${'uri' in entry ? entry.uri : entry.uriTemplate}  ${entry.name}${entry.description ? `  ${entry.description}` : ''}`).join('\n') : `no ${templates ? 'resource templates' : 'resources'}`);
      return;
    }
    case 'prompts': {
      const prompts = (await host.call('mcp.prompts', { server: needServer() })) as McpPromptEntry[];
      host.notice(prompts.length ? prompts.map((prompt) => `${prompt.name}(${prompt.arguments.map((arg) => `${arg.name}${arg.required ? '' : '?'}`).join(', ')})${prompt.description ? `  ${prompt.description}` : ''}`).join('\n') : 'no prompts');
      return;
    }
    case 'read':
    case 'prompt': {
      const document = await fetchDocument(host, verb, needServer(), words[1], rest(3));
      host.notice(`[preview of untrusted MCP ${verb === 'read' ? 'resource' : 'prompt'}; /mcp insert puts it in the draft]\n${formatDocument(document)}`);
      return;
    }
    case 'insert': {
      const kind = words[0];
      if (kind !== 'resource' && kind !== 'prompt') throw usage('/mcp insert needs "resource SERVER URI" or "prompt SERVER NAME [JSON]"');
      if (!words[1]) throw usage(`/mcp insert ${kind} needs a server id`);
      const document = await fetchDocument(host, kind === 'resource' ? 'read' : 'prompt', words[1], words[2], rest(4));
      const text = untrustedDraft(document);
      const draft = host.draft();
      host.setDraft(draft ? `${draft}\n${text}` : text);
      host.notice(`inserted the untrusted MCP ${kind} into the draft (nothing was sent)`);
      return;
    }
    default:
      throw usage(`unknown /mcp action "${verb}"`);
  }
}

async function fetchDocument(host: McpCommandHost, verb: 'read' | 'prompt', server: string, target: string | undefined, json: string | undefined): Promise<McpDocument> {
  if (!target) throw usage(verb === 'read' ? '/mcp read needs SERVER URI' : '/mcp prompt needs SERVER NAME');
  // In chunks, verified before anything is shown or drafted: a failed or cancelled read leaves the view as it was.
  const call = (method: string, params: Record<string, unknown>) => host.call(method, params);
  if (verb === 'read') return readMcpPreview(call, 'mcp.read', { server, uri: target });
  return readMcpPreview(call, 'mcp.prompt', { server, name: target, arguments: promptArguments(json) });
}
