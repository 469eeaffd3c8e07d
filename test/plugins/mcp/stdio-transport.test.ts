/** The stdio transport on its own: frame bounds and what happens when the server process ends by itself. */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LIMITS } from '../../../core/index.js';
import { StdioProcessTransport } from '../../../plugins/mcp/stdio-transport.js';

/** True while the process exists and is not a zombie. */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** A transport running `node -e script`, with its events recorded. */
function nodeServer(script: string) {
  const transport = new StdioProcessTransport({ command: process.execPath, args: ['-e', script], env: {}, cwd: process.cwd() });
  const messages: unknown[] = [];
  const errors: Error[] = [];
  transport.onmessage = (message) => messages.push(message);
  transport.onerror = (error) => errors.push(error);
  const closed = new Promise<void>((resolve) => (transport.onclose = () => resolve()));
  return { transport, messages, errors, closed };
}

/** A server script that writes one valid notification of exactly `size` bytes (newline excluded) in one write, then idles. */
function writesOneFrameOf(size: number): string {
  return (
    `const body = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { pad: '' } });` +
    `const pad = 'x'.repeat(${size} - body.length);` +
    `process.stdout.write(body.replace('"pad":""', '"pad":"' + pad + '"') + '\\n'); setInterval(() => {}, 1000);`
  );
}

describe('StdioProcessTransport', () => {
  const started: StdioProcessTransport[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((transport) => transport.close()));
  });

  it('refuses a frame over the message limit even when its newline arrives in the same chunk', async () => {
    // One write: the whole oversized frame and its newline can land in one read.
    const size = LIMITS.mcpMessageBytes + 10;
    const server = nodeServer(writesOneFrameOf(size));
    started.push(server.transport);
    await server.transport.start();
    await server.closed;
    expect(server.messages).toEqual([]);
    expect(server.transport.endReason).toMatch(/over the \d+-byte message limit/);
    expect(server.errors.some((error) => /message limit/.test(error.message))).toBe(true);
  });

  it('delivers a frame of exactly the message limit', async () => {
    const size = LIMITS.mcpMessageBytes;
    const server = nodeServer(writesOneFrameOf(size));
    started.push(server.transport);
    await server.transport.start();
    await expect.poll(() => server.messages.length, { timeout: 10_000 }).toBe(1);
    expect(server.transport.endReason).toBeUndefined();
  });

  it('ends the connection and its process group when the server exits while a child holds its stdout', async () => {
    // The leader starts a long-lived child that inherits stdout, reports its pid, then exits.
    const server = nodeServer(
      `const { spawn } = require('node:child_process');` +
        `const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: ['ignore', 'inherit', 'ignore'] });` +
        `process.stdout.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { pid: child.pid } }) + '\\n');` +
        `setTimeout(() => process.exit(3), 200);`,
    );
    started.push(server.transport);
    await server.transport.start();
    await expect.poll(() => server.messages.length, { timeout: 10_000 }).toBe(1);
    const childPid = (server.messages[0] as { params: { pid: number } }).params.pid;
    await server.closed;
    expect(server.transport.endReason).toBe('server process exited (code 3)');
    await expect.poll(() => alive(childPid), { timeout: 10_000 }).toBe(false);
  });

  it('takes the server\'s process group down when the host process dies', async () => {
    // A host that crashes while a server runs: the detached group must not outlive it.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xdog-stdio-host-'));
    const pidFile = path.join(dir, 'pids');
    const entry = path.resolve('dist/plugins/mcp/stdio-transport.js');
    const server =
      `const { spawn } = require('node:child_process'); const fs = require('node:fs');` +
      `const child = spawn('sleep', ['300'], { stdio: 'ignore' });` +
      `fs.writeFileSync(${JSON.stringify(pidFile)}, process.pid + ' ' + child.pid); setInterval(() => {}, 1000);`;
    const host = [
      `import fs from 'node:fs';`,
      `const { StdioProcessTransport } = await import(${JSON.stringify(entry)});`,
      `const transport = new StdioProcessTransport({ command: process.execPath, args: ['-e', ${JSON.stringify(server)}], env: {}, cwd: ${JSON.stringify(dir)} });`,
      `await transport.start();`,
      `const wait = () => (fs.existsSync(${JSON.stringify(pidFile)}) ? (() => { throw new Error('host crashed'); })() : setTimeout(wait, 20));`,
      `wait();`,
    ].join('\n');
    const child = spawn(process.execPath, ['--input-type=module', '-e', host], { stdio: 'ignore' });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).not.toBe(0);
    const pids = fs.readFileSync(pidFile, 'utf8').split(' ').map(Number);
    expect(pids).toHaveLength(2);
    for (const pid of pids) await expect.poll(() => alive(pid), { timeout: 10_000 }).toBe(false);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
