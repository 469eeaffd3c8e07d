/**
 * `mcp.subscribe` through a real gateway process and server-everything from
 * npm, whose subscribed resources "update" every few seconds once its
 * toggle-subscriber-updates tool ran: the group's clients get `mcp.changed`
 * `{ what: "resource", uri }` for a followed resource, none after
 * `mcp.unsubscribe`, the 33rd resource of one server is refused naming the
 * limit, a refused connect of a server that is up keeps what it follows, and
 * a disconnect forgets it.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayConnection } from '../../plugins/claw-gateway/index.js';
import { EVERYTHING } from '../plugins/mcp/support.js';
import { clawSandbox, collect, connect, startGateway, until, type ClawSandbox, type GatewayProcess } from '../support/claw.js';

const uri = (n: number) => `demo://resource/dynamic/text/${n}`;

function config(): string {
  return ['      mcp_servers: [everything]', 'mcp_servers:', '  everything:', `    command: ${JSON.stringify(process.execPath)}`, `    args: [${JSON.stringify(EVERYTHING)}, stdio]`, '    allow_tools: true', '    timeout: 60', ''].join('\n');
}

describe('MCP resource subscriptions of a claw group (real gateway, server-everything)', { timeout: 300_000 }, () => {
  let sandbox: ClawSandbox;
  let gateway: GatewayProcess;
  let client: GatewayConnection;
  const mcp = (method: string, params: Record<string, unknown>) => client.callService(method, params);
  const sessionId = async (): Promise<string | null> => ((await client.call('group.status', {})) as { activeSessionId: string | null }).activeSessionId;

  beforeAll(async () => {
    sandbox = clawSandbox(config());
    gateway = await startGateway(sandbox);
    client = await connect(sandbox);
    await client.call('subscribe', {});
    await mcp('mcp.connect', { server: 'everything', expectedSessionId: null });
  });
  afterAll(async () => {
    await client?.close();
    await gateway?.stop();
  });

  it('announces updates of followed resources until unsubscribed, bounded per server, forgotten at disconnect', async () => {
    const changes = collect(client, 'mcp.changed');
    const updates = (n: number) => changes.filter((change) => change.what === 'resource' && change.uri === uri(n)).length;
    expect(await mcp('mcp.subscribe', { server: 'everything', uri: uri(1) })).toEqual({ server: 'everything', uri: uri(1), subscribed: true, count: 1 });
    expect(await mcp('mcp.subscribe', { server: 'everything', uri: uri(2) })).toMatchObject({ count: 2 });
    // Following one again is no new subscription.
    expect(await mcp('mcp.subscribe', { server: 'everything', uri: uri(2) })).toMatchObject({ count: 2 });

    // The group's agent turns the server's simulated updates on.
    const ends = collect(client, 'run.end');
    const receipt = await client.call('prompt', { text: `calls ${JSON.stringify([{ name: 'everything__toggle-subscriber-updates', arguments: {} }])}`, idempotencyKey: randomUUID() });
    await until(() => ends.some((end) => end.inputId === receipt.inputId), 'the toggle run to end', 120_000);
    await until(() => updates(1) > 0 && updates(2) > 0, () => `updates of both resources (${JSON.stringify(changes)})\n${gateway.log()}`, 60_000);
    expect(changes.find((change) => change.uri === uri(1))).toEqual({ group: 'main', server: 'everything', state: 'connected', what: 'resource', stale: false, uri: uri(1) });

    // Unsubscribed, uri 1 is heard no more while uri 2 keeps updating (each update round covers both).
    expect(await mcp('mcp.unsubscribe', { server: 'everything', uri: uri(1) })).toEqual({ server: 'everything', uri: uri(1), subscribed: false, count: 1 });
    const [heard1, heard2] = [updates(1), updates(2)];
    await until(() => updates(2) >= heard2 + 2, 'two more update rounds of uri 2', 60_000);
    expect(updates(1)).toBe(heard1);
    await expect(mcp('mcp.unsubscribe', { server: 'everything', uri: uri(1) })).rejects.toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining(`does not follow ${uri(1)}`) });

    // At most 32 resources of one server: the 33rd is refused, naming the limit.
    for (let n = 3; n <= 33; n++) await mcp('mcp.subscribe', { server: 'everything', uri: uri(n) });
    await expect(mcp('mcp.subscribe', { server: 'everything', uri: uri(34) })).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED', message: expect.stringContaining('already follows 32 resources of MCP server "everything" (at most 32)') });

    // A connect of a server that is up is refused and changes nothing it follows.
    await expect(mcp('mcp.connect', { server: 'everything', expectedSessionId: await sessionId() })).rejects.toThrow();
    expect(await mcp('mcp.unsubscribe', { server: 'everything', uri: uri(33) })).toMatchObject({ count: 31 });

    // A disconnect forgets what the connection followed: the next connection starts with none.
    await mcp('mcp.disconnect', { server: 'everything', expectedSessionId: await sessionId() });
    await mcp('mcp.connect', { server: 'everything', expectedSessionId: await sessionId() });
    await expect(mcp('mcp.unsubscribe', { server: 'everything', uri: uri(2) })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await mcp('mcp.subscribe', { server: 'everything', uri: uri(2) })).toMatchObject({ count: 1 });
  });
});
