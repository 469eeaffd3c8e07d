/**
 * MCP elicitation in `xdog claw tui` (tmux, a real gateway, real MCP servers:
 * server-everything from npm and a small SDK fixture whose form has a
 * minLength): a server's question opens the form dialog with its fields, an
 * answer too short is refused with the reason on screen and the dialog
 * stays, a valid answer reaches the server (what it returns to the model),
 * and a decline reaches it as a decline.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayConnection } from '../../plugins/claw-gateway/index.js';
import { EVERYTHING } from '../plugins/mcp/support.js';
import { clawSandbox, connect, startGateway, until, type ClawSandbox, type GatewayProcess } from '../support/claw.js';
import { repoRoot } from '../support/cli.js';
import { hasTmux, tmuxSession } from '../support/tmux.js';

const ASKER = path.join(path.dirname(fileURLToPath(import.meta.url)), '../plugins/mcp/fixtures/elicit-server.mjs');

function config(): string {
  const node = JSON.stringify(process.execPath);
  const server = (args: string) => [`    command: ${node}`, `    args: ${args}`, '    allow_tools: true', '    timeout: 120'];
  return ['      mcp_servers: [everything, asker]', 'mcp_servers:', '  everything:', ...server(`[${JSON.stringify(EVERYTHING)}, stdio]`), '  asker:', ...server(`[${JSON.stringify(ASKER)}]`), ''].join('\n');
}

const name = `xdog-tui-elicit-${process.pid}`;
const tty = tmuxSession(name);
let sandbox: ClawSandbox;
let gateway: GatewayProcess | undefined;
let client: GatewayConnection | undefined;

beforeAll(async () => {
  if (!hasTmux) return;
  sandbox = clawSandbox(config());
  gateway = await startGateway(sandbox);
  // A client that cannot answer (no mcp-elicitation:1): it only connects the servers.
  client = await connect(sandbox);
  for (const server of ['everything', 'asker']) await client.call('mcp.connect' as never, { server, expectedSessionId: null } as never);
  const tools = async () => ((await client!.call('mcp.tools' as never, {} as never)) as Array<{ alias: string }>).map((tool) => tool.alias);
  await until(async () => (await tools()).includes('everything__trigger-elicitation-request'), 'the elicitation tool to be listed', 60_000);
}, 180_000);
afterAll(async () => {
  tty.kill();
  await client?.close();
  await gateway?.stop();
});

const onScreen = (test: (screen: string) => boolean, what: string): Promise<void> => tty.until(test, what);

/** Asks the (faux) model to call one tool, from the TUI's editor. */
function callFromTui(tool: string): void {
  tty.keys('-l', `calls ${JSON.stringify([{ name: tool, arguments: {} }])}`);
  tty.keys('Enter');
}

/** The text of the tool result the model got back for the run that called `tool` last. */
async function toolResult(tool: string, count: number): Promise<string> {
  const results = () =>
    sandbox
      .requests()
      .map((request: { messages: Array<{ role: string; toolName?: string; content: unknown }> }) => request.messages.at(-1)!)
      .filter((message: { role: string; toolName?: string }) => message.role === 'toolResult' && message.toolName === tool);
  await until(() => results().length >= count, `result ${count} of ${tool} to reach the model`, 120_000);
  return JSON.stringify(results()[count - 1]!.content);
}

describe.skipIf(!hasTmux)('xdog claw tui: MCP elicitation dialog', { timeout: 420_000 }, () => {
  it('shows the form, refuses a too-short answer on screen, sends a valid one, and sends a decline', async () => {
    tty.start(`env ${Object.entries({ ...sandbox.env, OCLIF_SKIP_NEW_VERSION_CHECK: '1' }).map(([key, value]) => `${key}='${value}'`).join(' ')} ${process.execPath} ${path.join(repoRoot, 'bin/run.js')} claw tui`, { width: 110, height: 34 });
    await onScreen((screen) => screen.includes('online'), 'the TUI online');

    // A form with a minLength: too short is refused with the rule, the dialog stays; fixed, it reaches the server.
    callFromTui('asker__ask');
    await onScreen((screen) => screen.includes('MCP server "asker" asks (a form') && screen.includes("not xdog's: untrusted") && screen.includes('Pick a nickname for the release notes.'), 'the fixture form');
    expect(tty.screen()).toContain('> Nickname * (string): ▏');
    expect(tty.screen()).toContain('at least 4 characters; at most 20 characters; required');
    tty.keys('-l', 'Al');
    tty.keys('Enter');
    await onScreen((screen) => screen.includes('refused: "nickname" must be at least 4 characters (minLength 4); it has 2'), 'the refusal on screen');
    expect(tty.screen()).toContain('MCP server "asker" asks');
    tty.keys('-l', 'an');
    tty.keys('Down');
    await onScreen((screen) => screen.includes('> Since (string):') && screen.includes('format date'), 'the date field focused');
    tty.keys('-l', '2026-02-30');
    tty.keys('Enter');
    await onScreen((screen) => screen.includes('refused: "since" must be a date as YYYY-MM-DD (format date)'), 'the date refused');
    for (let i = 0; i < 2; i++) tty.keys('BSpace');
    tty.keys('-l', '28');
    tty.keys('Enter');
    await onScreen((screen) => !screen.includes('MCP server "asker" asks') && screen.includes('your answer was sent'), 'the dialog closed');
    expect(await toolResult('asker__ask', 1)).toContain('elicit-fixture got: {\\"action\\":\\"accept\\",\\"content\\":{\\"nickname\\":\\"Alan\\",\\"since\\":\\"2026-02-28\\"}}');

    // server-everything's form: its fields with types, defaults and the required mark; the name reaches the server.
    callFromTui('everything__trigger-elicitation-request');
    await onScreen((screen) => screen.includes('MCP server "everything" asks (a form') && screen.includes('Please provide inputs for the following fields:'), 'the everything form');
    const form = tty.screen();
    expect(form).toContain('> String * (string): ▏');
    expect(form).toContain('Boolean (boolean): (unset)');
    expect(form).toContain('Integer (integer): default 42');
    expect(form).toContain('Untitled Single Select Enum (string): ‹ default Monica ›');
    expect(form).toContain('Your full, legal name — required');
    tty.keys('-l', 'Ada Lovelace');
    tty.keys('Enter');
    await onScreen((screen) => !screen.includes('MCP server "everything" asks') && screen.includes('your answer was sent'), 'the everything dialog closed');
    const accepted = await toolResult('everything__trigger-elicitation-request', 1);
    expect(accepted).toContain('User provided the requested information');
    expect(accepted).toContain('- Name: Ada Lovelace');
    expect(accepted).toContain('- Favorite Integer: 42');

    // Ctrl+D declines: the server hears a decline.
    callFromTui('everything__trigger-elicitation-request');
    await onScreen((screen) => screen.includes('MCP server "everything" asks (a form'), 'the form again');
    tty.keys('C-d');
    await onScreen((screen) => !screen.includes('MCP server "everything" asks') && screen.includes('the question was declined'), 'the declined dialog closed');
    const declined = await toolResult('everything__trigger-elicitation-request', 2);
    expect(declined).toContain('User declined to provide the requested information');
    expect(declined).toContain('the person declined it in xdog claw tui');
  });
});
