/**
 * `/mcp` in `xdog claw tui` on a real terminal (tmux) against a real gateway
 * and server-everything: connect from the TUI, the tools listing, a resource
 * preview, and `/mcp insert` putting the resource into the draft (labelled
 * untrusted, not sent) until the person sends it.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EVERYTHING } from '../plugins/mcp/support.js';
import { clawSandbox, startGateway, until, type ClawSandbox, type GatewayProcess } from '../support/claw.js';
import { repoRoot } from '../support/cli.js';
import { hasTmux, tmuxSession } from '../support/tmux.js';

const name = `xdog-tui-mcp-${process.pid}`;
const tty = tmuxSession(name);
const gateways: GatewayProcess[] = [];

afterEach(async () => {
  tty.kill();
  for (const gateway of gateways.splice(0)) await gateway.stop();
});

async function openTui(sandbox: ClawSandbox): Promise<void> {
  const env = Object.entries({ ...sandbox.env, OCLIF_SKIP_NEW_VERSION_CHECK: '1' })
    .map(([key, value]) => `${key}=${value}`)
    .join(' ');
  tty.start(`cd ${sandbox.root} && env ${env} ${process.execPath} ${path.join(repoRoot, 'bin/run.js')} claw tui; echo EXIT=$?; sleep 60`, { width: 160, height: 40 });
  await tty.waitFor('online');
}

describe.skipIf(!hasTmux)('xdog claw tui: /mcp', { timeout: 180_000 }, () => {
  it('connects a server, previews a resource and inserts it into the draft only on request', async () => {
    const sandbox = clawSandbox(
      [
        '      mcp_servers: [everything]',
        'mcp_servers:',
        '  everything:',
        `    command: ${JSON.stringify(process.execPath)}`,
        `    args: [${JSON.stringify(EVERYTHING)}, stdio]`,
        '    allow_tools: true',
        '    timeout: 30',
        '',
      ].join('\n'),
    );
    const gateway = await startGateway(sandbox);
    gateways.push(gateway);
    await openTui(sandbox);
    tty.keys('/mcp', 'Enter');
    await until(() => /everything {2}registered/.test(tty.screen()), () => `/mcp to list the server:\n${tty.screen()}`);
    tty.keys('/mcp connect everything', 'Enter');
    await until(() => /connected: everything {2}connected/.test(tty.screen()), () => `the connect:\n${tty.screen()}`, 60_000);
    tty.keys('/mcp tools', 'Enter');
    await until(() => tty.screen().includes('everything__echo  allowed'), () => `the tools:\n${tty.screen()}`);
    tty.keys('/mcp read everything demo://resource/dynamic/text/7', 'Enter');
    await until(() => tty.screen().includes('[preview of untrusted MCP resource'), () => `the preview:\n${tty.screen()}`);
    const before = sandbox.requests().length;

    tty.keys('/mcp insert resource everything demo://resource/dynamic/text/7', 'Enter');
    await until(() => tty.screen().includes('inserted the untrusted MCP resource into the draft (nothing was sent)'), () => `the insert:\n${tty.screen()}`);
    // In the editor (below its top border), not sent: the model got nothing.
    const editor = () => tty.screen().split('\n').slice(tty.screen().split('\n').findIndex((line) => line.startsWith('─'))).join('\n');
    expect(editor()).toContain('[untrusted MCP resource demo://resource/dynamic/text/7 from server everything; review it before you send it]');
    expect(sandbox.requests().length).toBe(before);
    tty.keys('Enter');
    await until(() => sandbox.requests().length > before, 'the draft to be sent');
    expect(JSON.stringify(sandbox.requests().at(-1)!.messages.at(-1)!.content)).toContain('[end of untrusted MCP resource]');
  });
});
