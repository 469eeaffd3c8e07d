/** `xdog agent acp` facing bad client input: errors name the client's field (-32602), and a frame over the limit fails loudly. */
import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../core/index.js';
import { repoRoot } from '../support/cli.js';
import { tempDir, writeTree } from '../support/temp.js';

function startAcp() {
  const root = tempDir('xdog-e2e-acp-input-');
  writeTree(root, { 'work/.keep': '', 'script.json': { responses: [{ text: 'ok' }] } });
  const child = spawn(process.execPath, [path.join(repoRoot, 'bin/run.js'), 'agent', 'acp', '--model', 'faux/demo', '--no-tools'], {
    cwd: path.join(root, 'work'),
    env: { ...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: '1', XDG_CONFIG_HOME: path.join(root, 'c'), XDG_DATA_HOME: path.join(root, 'd'), XDOG_FAUX_SCRIPT: path.join(root, 'script.json') },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  type Response = { id?: number; result?: unknown; error?: { code: number; message: string } };
  const responses = new Map<number, (message: Response) => void>();
  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    const message = JSON.parse(line) as Response;
    if (typeof message.id === 'number') responses.get(message.id)?.(message);
  });
  let nextId = 1;
  const request = (method: string, params: unknown) => {
    const id = nextId++;
    const answer = new Promise<Response>((resolve) => responses.set(id, resolve));
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    return answer;
  };
  return { root, child, request, exited, stderr: () => stderr };
}

describe('xdog agent acp with bad client input', { timeout: 120_000 }, () => {
  it('answers a bad cwd and an oversized prompt with -32602 naming the field', async () => {
    const acp = startAcp();
    await acp.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const relative = await acp.request('session/new', { cwd: 'work', mcpServers: [] });
    expect(relative.error).toMatchObject({ code: -32602, message: expect.stringContaining('cwd must be an absolute path') });
    const missing = await acp.request('session/new', { cwd: path.join(acp.root, 'nope'), mcpServers: [] });
    expect(missing.error).toMatchObject({ code: -32602, message: expect.stringContaining(`cwd ${path.join(acp.root, 'nope')} is not an existing directory`) });
    expect(`${relative.error!.message} ${missing.error!.message}`).not.toContain('--cwd');

    const created = await acp.request('session/new', { cwd: path.join(acp.root, 'work'), mcpServers: [] });
    const { sessionId } = created.result as { sessionId: string };
    const huge = await acp.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'x'.repeat(LIMITS.messageTextBytes + 1) }] });
    expect(huge.error).toMatchObject({ code: -32602, message: expect.stringContaining('prompt: a user message is') });
    const fine = await acp.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    expect(fine.result).toEqual({ stopReason: 'end_turn' });
    acp.child.stdin.end();
    expect(await acp.exited).toBe(0);
  });

  it('fails with the frame error on stderr when a line is over the message limit', async () => {
    const acp = startAcp();
    await acp.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const chunk = 'x'.repeat(1024 * 1024);
    acp.child.stdin.on('error', () => {}); // EPIPE once xdog has stopped reading
    let gone = false;
    void acp.exited.then(() => (gone = true));
    for (let i = 0; i <= LIMITS.acpMessageBytes / chunk.length && !gone; i++) {
      if (!acp.child.stdin.write(chunk)) await Promise.race([new Promise((resolve) => acp.child.stdin.once('drain', resolve)), acp.exited]);
    }
    acp.child.stdin.end();
    expect(await acp.exited).toBe(1);
    expect(acp.stderr()).toContain(`xdog: the ACP client sent a message over the ${LIMITS.acpMessageBytes}-byte limit; the connection was closed [LIMIT_EXCEEDED]`);
  });
});
