/**
 * Processes that outlive their pipes: a background job or a setsid'd grandchild
 * holding the output open must not keep a bash call (or an MCP close) waiting.
 * The sleeps are far longer than the test timeout, so a wait on the pipe fails the test.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentToolResult } from '../../../core/index.js';
import { StdioProcessTransport } from '../../../plugins/mcp/stdio-transport.js';
import { createBashTool, type BashDetails } from '../../../plugins/tools/index.js';

let cwd: string;
beforeEach(() => {
  cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'xdog-outlived-'));
});
afterEach(() => {
  // The stray sleeps record their pids; end them.
  for (const file of fs.readdirSync(cwd).filter((name) => name.endsWith('.pid'))) {
    try {
      process.kill(Number(fs.readFileSync(path.join(cwd, file), 'utf8')), 'SIGKILL');
    } catch {
      // already gone
    }
  }
  fs.rmSync(cwd, { recursive: true, force: true });
});

const bash = (command: string, timeout?: number): Promise<AgentToolResult<BashDetails>> =>
  createBashTool({ cwd }).execute({ command, timeout }, { toolCallId: 't1', signal: new AbortController().signal, onUpdate: () => {}, toolCtx: {} });
const text = (result: AgentToolResult): string => result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');

describe('bash with processes that outlive the command', { timeout: 30_000 }, () => {
  it('returns when the command exits although a background job holds stdout', async () => {
    const result = await bash('sleep 600 & echo $! > job.pid; echo done');
    expect(result.isError).toBeFalsy();
    expect(result.details).toMatchObject({ exitCode: 0, timedOut: false, pipesCut: true });
    expect(text(result)).toMatch(/^done\n\[background processes still held the output open/);
  });

  it('times out although a grandchild in another session holds stdout', async () => {
    const result = await bash('setsid sleep 600 & echo $! > stray.pid; sleep 600', 1);
    expect(result.isError).toBe(true);
    expect(result.details).toMatchObject({ timedOut: true, pipesCut: true });
    expect(text(result)).toContain('command timed out after 1s');
  });
});

describe('a stdio MCP server with a setsid child', { timeout: 30_000 }, () => {
  it('close() returns although the child holds the server\'s stdout', async () => {
    const pidFile = path.join(cwd, 'mcp-child.pid');
    // The grandchild writes its pid once it has left the group, so close() cannot kill it by chance.
    const grandchild = `echo $$ > '${pidFile}.tmp' && mv '${pidFile}.tmp' '${pidFile}' && exec sleep 600`;
    const script = `require('child_process').spawn('setsid', ['sh', '-c', ${JSON.stringify(grandchild)}], { stdio: ['ignore', 'inherit', 'inherit'] }); setInterval(() => {}, 1000);`;
    const transport = new StdioProcessTransport({ command: process.execPath, args: ['-e', script], env: {}, cwd });
    const closed = new Promise<void>((resolve) => (transport.onclose = () => resolve()));
    await transport.start();
    for (let i = 0; i < 200 && !fs.existsSync(pidFile); i++) await new Promise((resolve) => setTimeout(resolve, 25));
    await transport.close();
    await closed;
    // The stray child is still there: the transport did not wait for it.
    expect(spawnSync('kill', ['-0', fs.readFileSync(pidFile, 'utf8').trim()]).status).toBe(0);
  });
});
