/**
 * An Agent Client Protocol agent over any ACP stream (stdio in the CLI).
 * Each ACP session owns one xdog Agent; prompts stream as `session/update`
 * notifications (text, thinking, tool calls); `session/cancel` aborts the
 * run. Tool permission is asked of the client with `session/request_permission`
 * from the agent's `beforeToolCall` hook: the client (the host) owns policy,
 * and a cancelled or rejected request blocks the call.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import type { ContentBlock, PermissionOption, RequestPermissionRequest, StopReason } from '@agentclientprotocol/sdk';
import { ErrorCodes, XdogError, tapHook, type Agent, type ImageContent, type RunResult, type TextContent } from '../../core/index.js';
import { replayUpdates, toolKind, toolTitle, updateFor } from './updates.js';

/** What the ACP agent needs from its host. */
export interface AcpAgentOptions {
  /** Creates the xdog Agent of a new session working in `cwd`. */
  createAgent(cwd: string): Agent | Promise<Agent>;
  /** Shown to the client in `initialize`. */
  name?: string;
  version?: string;
  /** Told when closing a session's agent fails at disconnect (default: one line on stderr, never stdout). */
  onCloseError?(error: unknown): void;
}

interface Session {
  agent: Agent;
  cwd: string;
  running?: Promise<RunResult>;
}

const PERMISSION_OPTIONS: PermissionOption[] = [
  { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
  { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
];

/** Converts prompt content blocks: text and images become the user message; other blocks are refused. */
function promptContent(prompt: ContentBlock[]): { text: string; images: ImageContent[] } {
  const texts: string[] = [];
  const images: ImageContent[] = [];
  for (const block of prompt) {
    if (block.type === 'text') texts.push(block.text);
    else if (block.type === 'image') images.push({ type: 'image', data: block.data, mimeType: block.mimeType });
    else if (block.type === 'resource' && 'text' in block.resource) texts.push(`${block.resource.uri}:\n${block.resource.text}`);
    else if (block.type === 'resource_link') texts.push(`(linked: ${block.uri})`);
    else throw acp.RequestError.invalidParams(undefined, `prompt content of type "${block.type}" is not supported`);
  }
  return { text: texts.join('\n'), images };
}

/** Agent errors that a client's prompt causes (as opposed to xdog's own failures). */
const CLIENT_INPUT_ERRORS: ReadonlySet<string> = new Set([ErrorCodes.LIMIT_EXCEEDED, ErrorCodes.INVALID_ARGUMENT, ErrorCodes.IMAGE_REJECTED]);

/** ACP requires an absolute cwd; xdog also needs it to exist. Refused as the client's field, before anything starts. */
function checkSessionCwd(cwd: string): void {
  if (!path.isAbsolute(cwd)) throw acp.RequestError.invalidParams(undefined, `cwd must be an absolute path, got ${JSON.stringify(cwd)}`);
  if (!fs.statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) throw acp.RequestError.invalidParams(undefined, `cwd ${cwd} is not an existing directory`);
}

function stopReasonOf(result: RunResult): StopReason {
  if (result.status === 'aborted') return 'cancelled';
  if (result.stopReason === 'length') return 'max_tokens';
  return 'end_turn';
}

/** Builds the ACP agent app; connect it to a stream with `.connect(stream)`. */
export function createAcpAgent(options: AcpAgentOptions): acp.AgentApp {
  const sessions = new Map<string, Session>();
  const sessionOf = (sessionId: string): Session => {
    const session = sessions.get(sessionId);
    if (!session) throw acp.RequestError.sessionNotFound(sessionId);
    return session;
  };

  const reportCloseError =
    options.onCloseError ?? ((error: unknown) => void process.stderr.write(`xdog acp: closing a session failed: ${(error as Error)?.message ?? String(error)}\n`));
  let disconnected = false;
  /** Closes agents in parallel: one failing close neither stops the others nor goes unheard. */
  const closeAgents = async (agents: Agent[]): Promise<void> => {
    const results = await Promise.allSettled(agents.map((agent) => agent.close()));
    for (const result of results) if (result.status === 'rejected') reportCloseError(result.reason);
  };

  const app = acp.agent({ name: options.name ?? 'xdog' });
  app.onRequest(acp.methods.agent.initialize, ({ params }) => ({
    protocolVersion: Math.min(params.protocolVersion, acp.PROTOCOL_VERSION),
    agentCapabilities: { loadSession: true, promptCapabilities: { image: true, embeddedContext: true } },
    agentInfo: { name: options.name ?? 'xdog', version: options.version ?? '0.0.0' },
    authMethods: [],
  }));

  app.onRequest(acp.methods.agent.session.new, async ({ params, client }) => {
    // MCP servers are host policy (mcp_servers in the config); a client's list is refused, not silently ignored.
    if (params.mcpServers?.length) {
      throw acp.RequestError.invalidParams(undefined, 'xdog does not connect MCP servers named by the client; configure them under mcp_servers in the xdog config');
    }
    checkSessionCwd(params.cwd);
    const sessionId = randomUUID();
    const agent = await options.createAgent(params.cwd);
    if (disconnected) {
      // The client left while the agent was being built: nobody will close it later.
      await closeAgents([agent]);
      throw acp.RequestError.internalError(undefined, 'the connection closed while the session was being created');
    }
    tapHook(agent.hooks.beforeToolCall, 'acp-permission', async (call: { toolCall: { id: string; name: string }; args: Record<string, unknown>; signal: AbortSignal }) => {
      const request: RequestPermissionRequest = {
        sessionId,
        toolCall: { toolCallId: call.toolCall.id, title: toolTitle(call.toolCall.name, call.args), kind: toolKind(call.toolCall.name), status: 'pending', rawInput: call.args },
        options: PERMISSION_OPTIONS,
      };
      // The run's abort settles the question at once (the client is told to cancel its request too).
      const aborted = new Promise<'aborted'>((resolve) => {
        if (call.signal.aborted) resolve('aborted');
        call.signal.addEventListener('abort', () => resolve('aborted'), { once: true });
      });
      const answer = await Promise.race([client.request(acp.methods.client.session.requestPermission, request, { cancellationSignal: call.signal }), aborted]);
      if (answer === 'aborted' || call.signal.aborted) return { block: true, reason: 'the turn was cancelled while permission was pending' };
      if (answer.outcome.outcome === 'selected' && answer.outcome.optionId === 'allow') return undefined;
      return { block: true, reason: answer.outcome.outcome === 'cancelled' ? 'the permission request was cancelled' : 'the user denied permission for this tool call' };
    });
    sessions.set(sessionId, { agent, cwd: params.cwd });
    return { sessionId };
  });

  app.onRequest(acp.methods.agent.session.load, async ({ params, client }) => {
    // Sessions live as long as this process: load replays one created earlier on it.
    const session = sessionOf(params.sessionId);
    for (const update of replayUpdates(session.agent.messages)) await client.notify(acp.methods.client.session.update, { sessionId: params.sessionId, update });
    return {};
  });

  app.onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
    const session = sessionOf(params.sessionId);
    if (session.running) throw acp.RequestError.invalidRequest(undefined, 'a prompt is already running in this session; cancel it first');
    const { text, images } = promptContent(params.prompt);
    // No empty text part for an image-only prompt: some vendors (Anthropic) refuse empty text blocks.
    const content: Array<TextContent | ImageContent> = [...(text ? [{ type: 'text' as const, text }] : []), ...images];
    let stream: ReturnType<Agent['prompt']>;
    try {
      stream = session.agent.prompt(images.length ? { role: 'user', content, timestamp: Date.now() } : text);
    } catch (error) {
      // An oversized or malformed prompt is the client's input: say which field, not an internal error.
      if (XdogError.is(error) && CLIENT_INPUT_ERRORS.has(error.code)) throw acp.RequestError.invalidParams(undefined, `prompt: ${error.message}`);
      throw error;
    }
    session.running = (async () => {
      for await (const event of stream) {
        const update = updateFor(event);
        if (update) await client.notify(acp.methods.client.session.update, { sessionId: params.sessionId, update });
      }
      return stream.result();
    })();
    try {
      const result = await session.running;
      if (result.status === 'error') throw acp.RequestError.internalError({ stopReason: result.stopReason }, result.errorMessage ?? 'the model failed');
      return { stopReason: stopReasonOf(result) };
    } finally {
      session.running = undefined;
    }
  });

  app.onNotification(acp.methods.agent.session.cancel, ({ params }) => {
    sessions.get(params.sessionId)?.agent.abort();
  });

  app.onConnect((connection) => {
    void connection.closed.finally(async () => {
      disconnected = true;
      const agents = [...sessions.values()].map((session) => session.agent);
      sessions.clear();
      await closeAgents(agents);
    });
  });
  return app;
}
