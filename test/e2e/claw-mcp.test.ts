/**
 * MCP servers in claw groups through a real gateway process, the built CLI
 * and real servers from npm (server-everything, server-filesystem): nothing
 * starts with the gateway, `xdog claw mcp connect` starts a server in the
 * group's workspace, the scripted model calls its tools (allow_tools and the
 * read-only scope are enforced), disconnect and gateway stop reap the process
 * group, and another group does not see the first group's server.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayConnection } from '../../plugins/claw-gateway/index.js';
import type { GroupMcpServer, GroupMcpTool } from '../../plugins/claw-mcp/index.js';
import { EVERYTHING, FILESYSTEM } from '../plugins/mcp/support.js';
import { clawSandbox, collect, connect, startGateway, until, type ClawSandbox, type GatewayProcess } from '../support/claw.js';
import { runCliAsync, type CliResult } from '../support/cli.js';
import { descendants, groupAlive } from '../support/process-tree.js';

/** The group config lines and the servers: `everything` and `files` allowed, `noisy` (everything again) not. */
export function mcpConfig(otherWorkspace: string): string {
  const node = JSON.stringify(process.execPath);
  return [
    '      mcp_servers: [everything, files, noisy]',
    '    other:',
    `      workspace: ${otherWorkspace}`,
    '      model: faux/demo',
    '      enabled_tools: [read]',
    '      mcp_servers: [everything]',
    'mcp_servers:',
    '  everything:',
    `    command: ${node}`,
    `    args: [${JSON.stringify(EVERYTHING)}, stdio]`,
    '    allow_tools: true',
    '    read_only_tools: [echo]',
    '    env: { SECRET_TOKEN: "hunter2-value" }',
    '    timeout: 30',
    '  files:',
    `    command: ${node}`,
    `    args: [${JSON.stringify(FILESYSTEM)}, "."]`,
    '    allow_tools: true',
    '    timeout: 30',
    '  noisy:',
    `    command: ${node}`,
    `    args: [${JSON.stringify(EVERYTHING)}, stdio]`,
    '    timeout: 30',
    '',
  ].join('\n');
}

/** MCP server processes below `pid` (the gateway), by their entry file. */
export function serverProcesses(pid: number, entry: string) {
  return descendants(pid).filter((process) => process.args.includes(entry));
}

describe('MCP servers in claw groups (real gateway, faux model, npm servers)', { timeout: 300_000 }, () => {
  let sandbox: ClawSandbox;
  let gateway: GatewayProcess;
  let client: GatewayConnection;
  let other: string;
  const claw = (...args: string[]): Promise<CliResult> => runCliAsync(['claw', ...args], { env: sandbox.env, cwd: sandbox.root });
  const json = async <T>(...args: string[]): Promise<T> => {
    const result = await claw(...args, '--json');
    expect(result.status, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as T;
  };
  /** Prompts `group` with scripted tool calls; answers the tool results the model got back. */
  async function callTools(group: string, calls: unknown[], key: string) {
    const ends = collect(client, 'run.end');
    await client.call('subscribe', { group });
    const receipt = await client.call('prompt', { group, text: `calls ${JSON.stringify(calls)}`, idempotencyKey: key });
    await until(() => ends.some((end) => end.inputId === receipt.inputId), `the run of ${key} to end`, 60_000);
    const request = sandbox.requests().at(-1)!;
    const lastUser = request.messages.map((message) => message.role).lastIndexOf('user');
    return { tools: (request as unknown as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name), results: request.messages.slice(lastUser + 1).filter((message) => message.role === 'toolResult') };
  }

  beforeAll(async () => {
    const root = path.join(fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'xdog-claw-mcp-')));
    other = path.join(root, 'other-ws');
    fs.mkdirSync(other);
    sandbox = clawSandbox(mcpConfig(other));
    fs.writeFileSync(path.join(sandbox.workspace, 'notes.txt'), 'needle in the workspace\n');
    gateway = await startGateway(sandbox);
    client = await connect(sandbox);
  });
  afterAll(async () => {
    await client?.close();
    await gateway?.stop();
  });

  it('starts nothing until connect, then runs the server in the workspace for the group\'s agents, under the host\'s policy', async () => {
    expect(client.hello.capabilities).toContain('mcp:1');
    // Nothing at start: no server process below the gateway, every server only registered.
    expect(serverProcesses(gateway.child.pid!, EVERYTHING)).toEqual([]);
    expect(serverProcesses(gateway.child.pid!, FILESYSTEM)).toEqual([]);
    const listed = await json<GroupMcpServer[]>('mcp', 'list');
    expect(listed.map((server) => [server.id, server.state])).toEqual([['everything', 'registered'], ['files', 'registered'], ['noisy', 'registered']]);

    const connected = await claw('mcp', 'connect', 'everything');
    expect(connected.status, connected.stderr).toBe(0);
    expect(connected.stdout).toMatch(/^connected: everything {2}connected {2}stdio .* {2}tools: \d+ {2}allow_tools: true .* {2}env: SECRET_TOKEN\n$/);
    expect(connected.stdout + (await claw('mcp', 'list', '--json')).stdout).not.toContain('hunter2');
    for (const server of ['files', 'noisy']) expect((await claw('mcp', 'connect', server)).status).toBe(0);
    const [everything] = serverProcesses(gateway.child.pid!, EVERYTHING).filter((process) => process.pid === process.pgid);
    expect(everything?.cwd).toBe(fs.realpathSync(sandbox.workspace));
    const [files] = serverProcesses(gateway.child.pid!, FILESYSTEM);
    expect(files?.cwd).toBe(fs.realpathSync(sandbox.workspace));
    const status = (await json<GroupMcpServer[]>('mcp', 'list')).find((server) => server.id === 'everything')!;
    expect(status).toMatchObject({ state: 'connected', pid: everything!.pgid, envNames: ['SECRET_TOKEN'] });

    const tools = await json<GroupMcpTool[]>('mcp', 'tools');
    expect(tools.find((tool) => tool.alias === 'everything__echo')).toMatchObject({ allowed: true, readOnly: true });
    expect(tools.find((tool) => tool.alias === 'noisy__echo')).toMatchObject({ allowed: false });
    expect(tools.some((tool) => tool.alias === 'files__read_text_file')).toBe(true);

    // The model calls them at the next turn: echo and a filesystem read run, the server without allow_tools is blocked.
    const notes = path.join(sandbox.workspace, 'notes.txt');
    const first = await callTools('main', [
      { name: 'everything__echo', arguments: { message: 'hello from the group' } },
      { name: 'files__read_text_file', arguments: { path: notes } },
      { name: 'noisy__echo', arguments: { message: 'must not run' } },
    ], 'k1');
    expect(first.tools).toEqual(expect.arrayContaining(['everything__echo', 'files__read_text_file', 'noisy__echo']));
    const [echo, read, noisy] = first.results;
    expect(echo).toMatchObject({ isError: false });
    expect(JSON.stringify(echo!.content)).toContain('hello from the group');
    expect(read).toMatchObject({ isError: false });
    expect(JSON.stringify(read!.content)).toContain('needle in the workspace');
    expect(noisy).toMatchObject({ isError: true });
    expect(JSON.stringify(noisy!.content)).toContain('MCP server \\"noisy\\" is not allowed to run tools');

    // Read-only: a tool the host listed in read_only_tools runs; a mutating one is blocked (its server's hints grant nothing).
    expect((await claw('readonly', 'on')).status).toBe(0);
    const written = path.join(sandbox.workspace, 'pwned.txt');
    const second = await callTools('main', [
      { name: 'everything__echo', arguments: { message: 'still allowed' } },
      { name: 'files__write_file', arguments: { path: written, content: 'x' } },
      { name: 'files__read_text_file', arguments: { path: notes } },
    ], 'k2');
    expect(second.results[0]).toMatchObject({ isError: false });
    expect(second.results[1]).toMatchObject({ isError: true });
    expect(JSON.stringify(second.results[1]!.content)).toContain('the read-only scope is on: \\"files__write_file\\" is not allowed');
    expect(second.results[2]).toMatchObject({ isError: true });
    expect(fs.existsSync(written)).toBe(false);
    expect((await claw('readonly', 'off')).status).toBe(0);

    // Another group has none of it: no tools, its server not started.
    expect(await json<GroupMcpTool[]>('mcp', 'tools', '--group', 'other')).toEqual([]);
    expect((await json<GroupMcpServer[]>('mcp', 'list', '--group', 'other')).map((server) => server.state)).toEqual(['registered']);
    const notThere = await callTools('other', [{ name: 'everything__echo', arguments: { message: 'x' } }], 'k3');
    expect(notThere.tools).not.toContain('everything__echo');
    expect(notThere.results[0]).toMatchObject({ isError: true });
    const refused = await claw('mcp', 'connect', 'files', '--group', 'other');
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('group other has no MCP server "files"');

    // Disconnect ends the server: its process group is gone (killed and reaped, no zombie left).
    const disconnected = await claw('mcp', 'disconnect', 'everything');
    expect(disconnected.status, disconnected.stderr).toBe(0);
    expect(disconnected.stdout).toMatch(/^disconnected: everything {2}disconnected/);
    expect(groupAlive(everything!.pgid)).toBe(false);
    const after = await callTools('main', [{ name: 'everything__echo', arguments: { message: 'gone' } }], 'k4');
    expect(after.tools).not.toContain('everything__echo');
    expect(after.tools).toContain('files__read_text_file');
  });

  it('refuses a connect while a turn runs or for a session the client did not see', async () => {
    await client.call('subscribe', {});
    await client.call('prompt', { text: 'slow 30', idempotencyKey: 'busy-1' });
    const busy = await claw('mcp', 'connect', 'everything');
    expect(busy.status).not.toBe(0);
    expect(busy.stderr).toMatch(/group main is busy/);
    await client.call('abort', {});
    await until(async () => !((await client.call('group.status', {})) as { busy: boolean }).busy, 'the group to be idle');
    const stale = await claw('mcp', 'connect', 'everything', '--expect', 'none');
    expect(stale.status).not.toBe(0);
    expect(stale.stderr).toMatch(/the active session of group main is/);
    expect(serverProcesses(gateway.child.pid!, EVERYTHING).filter((process) => process.state !== 'Z')).toHaveLength(1); // noisy only
  });

  it('plan mode blocks MCP tools while planning, like any tool that is not a local read', async () => {
    const planned = await claw('plan', 'start', 'look at the notes');
    expect(planned.status, planned.stderr).toBe(0);
    const blocked = await callTools('main', [{ name: 'files__read_text_file', arguments: { path: path.join(sandbox.workspace, 'notes.txt') } }], 'plan-1');
    expect(blocked.results[0]).toMatchObject({ isError: true });
    expect(JSON.stringify(blocked.results[0]!.content)).toContain('plan mode: \\"files__read_text_file\\" is not allowed while planning');
    expect((await claw('plan', 'stop')).status).toBe(0);
  });

  it('reaps every server of the group when the gateway stops', async () => {
    const pids = [...serverProcesses(gateway.child.pid!, EVERYTHING), ...serverProcesses(gateway.child.pid!, FILESYSTEM)].map((process) => process.pgid);
    expect(pids.length).toBeGreaterThanOrEqual(2);
    await client.close();
    expect(await gateway.stop()).toBe(0);
    for (const pgid of pids) expect(groupAlive(pgid)).toBe(false);
  });
});
