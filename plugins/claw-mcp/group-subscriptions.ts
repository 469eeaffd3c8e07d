/**
 * Resources a group's clients follow (`mcp.subscribe`): the server is asked
 * for `notifications/resources/updated` about each, at most
 * LIMITS.mcpResourceSubscriptions per server. They belong to the server's
 * connection: a connect or disconnect of it forgets them.
 */
import { ErrorCodes, LIMITS, XdogError } from '../../core/index.js';
import type { McpRegistry } from '../mcp/index.js';

export class GroupSubscriptions {
  readonly #uris = new Map<string, Set<string>>();

  async subscribe(group: string, registry: McpRegistry, server: string, uri: string): Promise<{ server: string; uri: string; subscribed: true; count: number }> {
    const uris = this.#of(group, server);
    if (!uris.has(uri)) {
      if (uris.size >= LIMITS.mcpResourceSubscriptions) {
        throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `group ${group} already follows ${uris.size} resources of MCP server "${server}" (at most ${LIMITS.mcpResourceSubscriptions})`, { hint: 'unsubscribe from one first (mcp.unsubscribe)' });
      }
      await registry.subscribeResource(server, uri);
      uris.add(uri);
    }
    return { server, uri, subscribed: true, count: uris.size };
  }

  async unsubscribe(group: string, registry: McpRegistry, server: string, uri: string): Promise<{ server: string; uri: string; subscribed: false; count: number }> {
    const uris = this.#of(group, server);
    if (!uris.has(uri)) throw new XdogError(ErrorCodes.NOT_FOUND, `group ${group} does not follow ${uri} on MCP server "${server}"`, { hint: 'mcp.subscribe follows a resource' });
    await registry.unsubscribeResource(server, uri);
    uris.delete(uri);
    return { server, uri, subscribed: false, count: uris.size };
  }

  /** The server's connection changed (connect, disconnect): what it followed is gone with it. */
  forget(group: string, server: string): void {
    this.#uris.delete(`${group}\u0000${server}`);
  }

  forgetGroup(group: string): void {
    for (const key of [...this.#uris.keys()]) if (key.startsWith(`${group}\u0000`)) this.#uris.delete(key);
  }

  #of(group: string, server: string): Set<string> {
    const key = `${group}\u0000${server}`;
    let uris = this.#uris.get(key);
    if (!uris) this.#uris.set(key, (uris = new Set()));
    return uris;
  }
}
