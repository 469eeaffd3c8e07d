/**
 * MCP 2026-07-28 above the wire: the `server/discover` probe that tells a
 * modern server from an initialize-era one, per-request `_meta` (version,
 * client identity, capabilities), and `input_required` rounds, in which the
 * server asks for Roots, an elicitation or a sampling call and the client
 * retries the request with the answers. Rounds, input requests and each
 * request's time are bounded; a failed round fails the request, nothing is
 * guessed.
 */
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCodes, LIMITS, XdogError } from '../../core/index.js';
import { answerClientRequest, clientCapabilities, type McpClientHandlers, type McpRoots } from './client-requests.js';
import { HttpRejection, RpcError, type ModernPeer } from './modern-peers.js';

/** The modern revision xdog speaks. */
export const MODERN_VERSION = '2026-07-28';

/** Identifies this client to servers. */
export const CLIENT_INFO = { name: 'xdog', version: '0.1.0' };

/** JSON-RPC errors only a modern server sends: they never mean "legacy peer". */
const MODERN_ERRORS: Record<number, string> = { [-32020]: 'HeaderMismatch', [-32021]: 'MissingRequiredClientCapability', [-32022]: 'UnsupportedProtocolVersion' };
const METHOD_NOT_FOUND = -32601;

/** Requests a server may answer with `input_required`. */
const INPUT_METHODS = new Set(['tools/call', 'prompts/get', 'resources/read']);

/** What `server/discover` told. */
export interface DiscoverInfo {
  supportedVersions: string[];
  capabilities: Record<string, unknown>;
  serverInfo?: { name: string; version: string };
  instructions?: string;
}

export type ProbeOutcome = { era: 'modern'; discover: DiscoverInfo } | { era: 'legacy'; why: string };

export interface SessionOptions {
  server: string;
  timeoutMs: number;
  roots: McpRoots;
  handlers: McpClientHandlers;
}

/** The `_meta` every modern request carries. */
export function requestMeta(options: Pick<SessionOptions, 'roots' | 'handlers'>): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
    'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
    'io.modelcontextprotocol/clientCapabilities': clientCapabilities(options.roots, options.handlers),
  };
}

/**
 * Asks `server/discover` first. Only method-not-found (and, over HTTP, a 4xx
 * without a modern error, which is how an initialize-era HTTP server refuses
 * a sessionless request) means an initialize-era server. A version rejection
 * or any other modern error is a modern server: it is reported, never
 * answered with a legacy handshake.
 */
export async function probe(peer: ModernPeer, options: SessionOptions & { transport: 'stdio' | 'http'; signal?: AbortSignal }): Promise<ProbeOutcome> {
  let result: Record<string, unknown>;
  try {
    result = await peer.request({ method: 'server/discover', params: { _meta: requestMeta(options) }, timeoutMs: options.timeoutMs, ...(options.signal ? { signal: options.signal } : {}) });
  } catch (error) {
    if (error instanceof RpcError && error.code === METHOD_NOT_FOUND) return { era: 'legacy', why: 'server/discover is an unknown method there' };
    if (error instanceof RpcError && error.code === -32022) throw versionRejected(options.server, error);
    if (error instanceof RpcError && MODERN_ERRORS[error.code]) {
      throw new XdogError(ErrorCodes.MCP_FAILED, `MCP server "${options.server}" refused server/discover: ${MODERN_ERRORS[error.code]} (${error.message})`, { details: { mcpCode: error.code } });
    }
    if (options.transport === 'http' && error instanceof HttpRejection && error.status >= 400 && error.status < 500) return { era: 'legacy', why: `it answered server/discover with ${error.message}` };
    if (options.transport === 'http' && error instanceof RpcError && error.status !== undefined && error.status >= 400 && error.status < 500) {
      return { era: 'legacy', why: `it answered server/discover with HTTP ${error.status} and a non-modern error (${error.code})` };
    }
    if (error instanceof RpcError) {
      throw new XdogError(ErrorCodes.MCP_FAILED, `MCP server "${options.server}" answered server/discover with error ${error.code} (${error.message}); only "method not found" marks an initialize-era server, so no legacy handshake was tried`, {
        hint: 'the server speaks neither protocol as specified: check its version',
        details: { mcpCode: error.code },
      });
    }
    throw error;
  }
  // An initialize-era server that answers any method (the conformance runner's does) returns no DiscoverResult shape at all.
  if (result.supportedVersions === undefined && result.resultType === undefined) return { era: 'legacy', why: 'its answer to server/discover is not a DiscoverResult (no supportedVersions, no resultType)' };
  const discover = parseDiscover(options.server, result);
  if (discover.supportedVersions.includes(MODERN_VERSION)) return { era: 'modern', discover };
  if (discover.supportedVersions.some((version) => SUPPORTED_PROTOCOL_VERSIONS.includes(version))) {
    return { era: 'legacy', why: `its server/discover lists only initialize-era versions (${discover.supportedVersions.join(', ')})` };
  }
  throw new XdogError(ErrorCodes.MCP_FAILED, `MCP server "${options.server}" supports protocol versions ${discover.supportedVersions.join(', ') || 'none'}; xdog speaks ${[MODERN_VERSION, ...SUPPORTED_PROTOCOL_VERSIONS].join(', ')}`, {
    hint: 'update the server or xdog',
  });
}

function versionRejected(server: string, error: RpcError): XdogError {
  const supported = (error.data as { supported?: unknown } | undefined)?.supported;
  const list = Array.isArray(supported) ? supported.filter((item): item is string => typeof item === 'string').slice(0, 32) : [];
  return new XdogError(ErrorCodes.MCP_FAILED, `MCP server "${server}" does not support protocol ${MODERN_VERSION} (it supports ${list.join(', ') || 'nothing it named'}); it is a 2026-era server, so no legacy initialize was tried`, {
    hint: 'update the server or xdog to a common protocol version',
    details: { mcpCode: error.code, supported: list },
  });
}

function parseDiscover(server: string, result: Record<string, unknown>): DiscoverInfo {
  const versions = result.supportedVersions;
  if (!Array.isArray(versions) || versions.length > 32 || versions.some((version) => typeof version !== 'string')) {
    throw new XdogError(ErrorCodes.MCP_FAILED, `MCP server "${server}" answered server/discover without a valid supportedVersions list`);
  }
  const capabilities = result.capabilities;
  if (typeof capabilities !== 'object' || capabilities === null || Array.isArray(capabilities)) {
    throw new XdogError(ErrorCodes.MCP_FAILED, `MCP server "${server}" answered server/discover without a capabilities object`);
  }
  const info = (result._meta as Record<string, unknown> | undefined)?.['io.modelcontextprotocol/serverInfo'] as { name?: unknown; version?: unknown } | undefined;
  return {
    supportedVersions: versions as string[],
    capabilities: capabilities as Record<string, unknown>,
    ...(info && typeof info.name === 'string' && typeof info.version === 'string' ? { serverInfo: { name: info.name, version: info.version } } : {}),
    ...(typeof result.instructions === 'string' ? { instructions: result.instructions } : {}),
  };
}

/** A server found modern: stateless requests with `_meta`, and input rounds. */
export class ModernSession {
  readonly discover: DiscoverInfo;
  readonly #peer: ModernPeer;
  readonly #options: SessionOptions;

  constructor(peer: ModernPeer, discover: DiscoverInfo, options: SessionOptions) {
    this.#peer = peer;
    this.discover = discover;
    this.#options = options;
  }

  /**
   * One request, with as many `input_required` rounds as the server asks for
   * (at most LIMITS.mcpInputRounds). Each round is a new request carrying the
   * original params, the answers and the server's `requestState` unchanged.
   */
  async request(method: string, params: Record<string, unknown> | undefined, options: { signal?: AbortSignal; headers?: Record<string, string> } = {}): Promise<Record<string, unknown>> {
    const base = params ?? {};
    const meta = { ...((base._meta as Record<string, unknown> | undefined) ?? {}), ...requestMeta(this.#options) };
    let extra: Record<string, unknown> = {};
    for (let round = 0; ; round++) {
      const result = await this.#peer.request({
        method,
        params: { ...base, ...extra, _meta: meta },
        timeoutMs: this.#options.timeoutMs,
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.headers ? { headers: options.headers } : {}),
      });
      const type = result.resultType ?? 'complete';
      if (type === 'complete') return result;
      if (type !== 'input_required') throw this.#fail(method, `answered with an unknown resultType ${JSON.stringify(type)}`);
      if (!INPUT_METHODS.has(method)) throw this.#fail(method, 'answered input_required, which the protocol allows only for tools/call, prompts/get and resources/read');
      if (round + 1 >= LIMITS.mcpInputRounds) throw this.#fail(method, `still asked for input after ${LIMITS.mcpInputRounds} rounds; the request was given up`);
      extra = await this.#answer(method, result, options.signal);
    }
  }

  async #answer(method: string, result: Record<string, unknown>, signal?: AbortSignal): Promise<Record<string, unknown>> {
    const requests = result.inputRequests;
    const state = result.requestState;
    if (requests === undefined && state === undefined) throw this.#fail(method, 'answered input_required with neither inputRequests nor requestState');
    if (state !== undefined && (typeof state !== 'string' || state.length > LIMITS.mcpMessageBytes)) throw this.#fail(method, 'sent a requestState that is not a string');
    const responses: Record<string, unknown> = {};
    if (requests !== undefined) {
      if (typeof requests !== 'object' || requests === null || Array.isArray(requests)) throw this.#fail(method, 'sent inputRequests that is not an object');
      const entries = Object.entries(requests as Record<string, unknown>);
      if (entries.length > LIMITS.mcpInputRequests) throw this.#fail(method, `asked for ${entries.length} inputs in one round (at most ${LIMITS.mcpInputRequests})`);
      // One at a time: a person answers one question after another.
      for (const [key, request] of entries) {
        const { method: asked, params } = (request ?? {}) as { method?: unknown; params?: unknown };
        if (typeof asked !== 'string') throw this.#fail(method, `input request "${key}" names no method`);
        responses[key] = await answerClientRequest(this.#options.server, asked, params, {
          roots: this.#options.roots,
          handlers: this.#options.handlers,
          signal: signal ?? new AbortController().signal,
          deadlineMs: LIMITS.mcpElicitationSeconds * 1000,
        });
      }
    }
    return { ...(requests !== undefined ? { inputResponses: responses } : {}), ...(typeof state === 'string' ? { requestState: state } : {}) };
  }

  #fail(method: string, problem: string): XdogError {
    return new XdogError(ErrorCodes.MCP_FAILED, `MCP server "${this.#options.server}" (${method}) ${problem}`);
  }
}
