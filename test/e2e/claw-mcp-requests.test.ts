/**
 * What a group's MCP server asks of the gateway, through a real gateway
 * process and server-everything from npm: its tools/list_changed after the
 * handshake refreshes the group's tools (its conditional tools appear), a
 * sampling request runs on the group's (faux) model only for the server whose
 * entry allows it, within its max_tokens, and lands in the usage ledger with
 * origin mcp; an elicitation reaches the group's clients, a wrong answer is
 * refused and the question keeps waiting, and the right one reaches the server.
 * With no client that declared it can answer (the `mcp-elicitation:1` client
 * feature), the elicitation is declined at once with the reason the server gets;
 * an answer breaking the form's rules (format, maximum) is refused naming them.
 */
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientFeatures, type GatewayConnection } from '../../plugins/claw-gateway/index.js';
import type { GroupMcpTool } from '../../plugins/claw-mcp/index.js';
import { EVERYTHING } from '../plugins/mcp/support.js';
import { runCli } from '../support/cli.js';
import { clawSandbox, collect, connect, startGateway, until, type ClawSandbox, type GatewayProcess } from '../support/claw.js';

type Sqlite = { prepare(sql: string): { all(): unknown[] }; close(): void };
const Database = createRequire(import.meta.url)('better-sqlite3') as new (file: string, options: { readonly: boolean }) => Sqlite;

function config(): string {
  const node = JSON.stringify(process.execPath);
  const server = (sampling: string) => [`    command: ${node}`, `    args: [${JSON.stringify(EVERYTHING)}, stdio]`, '    allow_tools: true', '    timeout: 60', '    refresh_on_change: true', ...(sampling ? [sampling] : [])];
  return ['      mcp_servers: [everything, plain]', 'mcp_servers:', '  everything:', ...server('    sampling: { allow: true, max_tokens: 200 }'), '  plain:', ...server(''), ''].join('\n');
}

describe('MCP server requests in a claw group (real gateway, server-everything)', { timeout: 300_000 }, () => {
  let sandbox: ClawSandbox;
  let gateway: GatewayProcess;
  let client: GatewayConnection;
  let answerer: GatewayConnection | undefined;
  const tools = async (): Promise<string[]> => ((await client.call('mcp.tools' as never, {} as never)) as GroupMcpTool[]).map((tool) => tool.alias);
  /** Runs one scripted tool call; answers the tool result the model got back. */
  async function callTool(name: string, args: unknown, key: string) {
    const ends = collect(client, 'run.end');
    const receipt = await client.call('prompt', { text: `calls ${JSON.stringify([{ name, arguments: args }])}`, idempotencyKey: key });
    await until(() => ends.some((end) => end.inputId === receipt.inputId), `the run of ${key} to end`, 120_000);
    const request = sandbox.requests().at(-1)!;
    const result = request.messages.at(-1)!;
    expect(result.role).toBe('toolResult');
    return { isError: result.isError, text: JSON.stringify(result.content) };
  }

  beforeAll(async () => {
    sandbox = clawSandbox(config());
    gateway = await startGateway(sandbox);
    client = await connect(sandbox);
    await client.call('subscribe', {});
    const changes = collect(client, 'mcp.changed');
    for (const server of ['everything', 'plain']) await client.call('mcp.connect' as never, { server, expectedSessionId: null } as never);
    // The server registers its conditional tools after the handshake and says so: the group's tool set follows.
    await until(async () => (await tools()).includes('everything__trigger-elicitation-request'), 'the announced tools to be refreshed', 60_000);
    expect(changes.some((change) => change.server === 'everything' && change.what === 'tools' && change.refreshed === true)).toBe(true);
  });
  afterAll(async () => {
    await answerer?.close();
    await client?.close();
    await gateway?.stop();
  });

  it('runs sampling on the group model for the server that may sample, bounded, and records it', async () => {
    const listed = await tools();
    expect(listed).toContain('everything__trigger-sampling-request');
    // Not declared to a server without sampling: allow, so it offers no tool that samples.
    expect(listed).toContain('plain__trigger-elicitation-request');
    expect(listed).not.toContain('plain__trigger-sampling-request');

    const sampled = await callTool('everything__trigger-sampling-request', { prompt: 'capital of France?', maxTokens: 50 }, 's1');
    expect(sampled.isError).toBe(false);
    expect(sampled.text).toContain('echo: Resource trigger-sampling-request context: capital of France?');
    expect(sampled.text).toContain('faux/demo');
    const store = new Database(sandbox.storeFile, { readonly: true });
    const rows = store.prepare("SELECT model, origin, origin_id AS originId, session_id AS sessionId, output_tokens AS output FROM claw_usage WHERE origin = 'mcp'").all();
    store.close();
    expect(rows).toEqual([{ model: 'faux/demo', origin: 'mcp', originId: 'everything', sessionId: null, output: expect.any(Number) }]);

    // The built CLI sums the ledger by MCP server (only sampling calls) and by origin (every call).
    const usage = (...by: string[]) => runCli(['claw', 'usage', '--by', ...by], { env: sandbox.env, cwd: sandbox.root });
    const byServer = usage('mcp', '--json');
    expect(byServer.status, byServer.stderr).toBe(0);
    expect(JSON.parse(byServer.stdout)).toEqual([expect.objectContaining({ by: 'mcp', key: 'everything', calls: 1 })]);
    const table = usage('mcp');
    expect(table.status, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^MCP\s+CALLS/m);
    expect(table.stdout).toMatch(/^everything\s+1\s/m);
    const byOrigin = usage('origin', '--json');
    expect(byOrigin.status, byOrigin.stderr).toBe(0);
    const origins = JSON.parse(byOrigin.stdout) as Array<{ key: string | null; calls: number }>;
    expect(origins.find((row) => row.key === 'mcp')?.calls).toBe(1);
    expect(origins.find((row) => row.key === 'prompt')?.calls).toBeGreaterThanOrEqual(1);

    const tooMany = await callTool('everything__trigger-sampling-request', { prompt: 'a long essay', maxTokens: 500 }, 's2');
    expect(tooMany.isError).toBe(true);
    expect(tooMany.text).toContain('over its mcp_servers.everything.sampling.max_tokens of 200');
  });

  it('declines at once, with the reason, while no client that can answer follows the group', async () => {
    // `client` follows the group but did not declare mcp-elicitation:1 (like `xdog claw send`): nobody could answer.
    const asked = collect(client, 'mcp.elicitation');
    const result = await callTool('everything__trigger-elicitation-request', {}, 'headless');
    expect(result.isError).toBe(false);
    expect(result.text).toContain('User declined to provide the requested information');
    expect(result.text).toContain('no client that can answer is connected to group main; open `xdog claw tui` to answer the next one');
    expect(asked).toEqual([]);
  });

  it('shows an elicitation to the group clients and sends only a valid answer', async () => {
    answerer = await connect(sandbox, 'answerer', [ClientFeatures.mcpElicitation]);
    await answerer.call('subscribe', {});
    const asked = collect(client, 'mcp.elicitation');
    const ended = collect(client, 'mcp.elicitation.ended');
    const run = callTool('everything__trigger-elicitation-request', {}, 'e1');
    await until(() => asked.length > 0, 'the elicitation to reach the client', 60_000);
    const { elicitation } = asked[0]!;
    expect(elicitation).toMatchObject({ group: 'main', server: 'everything', message: 'Please provide inputs for the following fields:', required: ['name'] });
    expect(((await client.call('mcp.elicitations' as never, {} as never)) as Array<{ id: string }>).map((item) => item.id)).toEqual([elicitation.id]);

    await expect(client.call('mcp.answer' as never, { id: elicitation.id, action: 'accept', content: { check: true } } as never)).rejects.toThrow('the answer lacks the required field "name"');
    await expect(client.call('mcp.answer' as never, { id: elicitation.id, action: 'accept', content: { name: 'Ada', untitledSingleSelectEnum: 'Gunther' } } as never)).rejects.toThrow(/not a valid choice/);
    // The form's own rules: server-everything asks for an email format and an integer of 1-100.
    await expect(client.call('mcp.answer' as never, { id: elicitation.id, action: 'accept', content: { name: 'Ada', email: 'ada.example.org' } } as never)).rejects.toThrow('the answer\'s field "email" must be an email address such as ada@example.org (format email)');
    await expect(client.call('mcp.answer' as never, { id: elicitation.id, action: 'accept', content: { name: 'Ada', integer: 500 } } as never)).rejects.toThrow('the answer\'s field "integer" must be at most 100 (maximum 100)');
    expect(await client.call('mcp.answer' as never, { id: elicitation.id, action: 'accept', content: { name: 'Ada Lovelace', check: true } } as never)).toEqual({ id: elicitation.id, action: 'accept' });
    const result = await run;
    expect(result.isError).toBe(false);
    expect(result.text).toContain('- Name: Ada Lovelace');
    expect(result.text).toContain('- Favorite Integer: 42'); // the default the form offered
    expect(ended).toEqual([{ group: 'main', id: elicitation.id, action: 'accept' }]);
    await expect(client.call('mcp.answer' as never, { id: elicitation.id, action: 'decline' } as never)).rejects.toThrow(/no MCP question .* waits in group main/);
  });
});
