/**
 * Chunked reads through a real gateway process and the built CLI: a child's
 * transcript over the old 4 MiB answer bound (`agents.source`, `xdog claw
 * agents inspect --transcript`) and MCP previews bigger than one 8 MiB frame
 * (`mcp.read`, `mcp.prompt`, `xdog claw mcp read|prompt`) arrive whole and
 * verified; a later chunk of a snapshot the gateway does not hold is refused.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../core/limits.js';
import type { GatewayConnection } from '../../plugins/claw-gateway/index.js';
import { clawSandbox, connect, startGateway, type ClawSandbox, type GatewayProcess } from '../support/claw.js';
import { runCliAsync, type CliResult } from '../support/cli.js';

const LARGE_SERVER = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/claw/mcp-large-server.mjs');
const BIG_TEXT = 5_000_000;
const BLOCKS = 150_000;
const MESSAGES = 130_000;

describe('chunked reads (real gateway, faux model, built CLI)', { timeout: 300_000 }, () => {
  let sandbox: ClawSandbox;
  let gateway: GatewayProcess;
  let client: GatewayConnection;
  const claw = (...args: string[]): Promise<CliResult> => runCliAsync(['claw', ...args], { env: sandbox.env, cwd: sandbox.root });
  const json = async <T>(...args: string[]): Promise<T> => {
    const result = await claw(...args, '--json');
    expect(result.status, `${result.stderr}${result.stdout.slice(0, 2000)}`).toBe(0);
    return JSON.parse(result.stdout) as T;
  };

  beforeAll(async () => {
    sandbox = clawSandbox(['      mcp_servers: [large]', 'mcp_servers:', '  large:', `    command: ${JSON.stringify(process.execPath)}`, `    args: [${JSON.stringify(LARGE_SERVER)}]`, '    timeout: 60', ''].join('\n'));
    gateway = await startGateway(sandbox);
    client = await connect(sandbox);
  });
  afterAll(async () => {
    await client?.close();
    await gateway?.stop();
  });

  it("reads a child's transcript over 4 MiB in verified chunks of one snapshot", async () => {
    const child = await client.callService('agents.start', { task: `bigtext ${BIG_TEXT}` });
    const [ended] = await client.callService('agents.wait', { ids: [child.id] });
    expect(ended.status).not.toBe('running');

    // The wire: 64 KiB chunks of one snapshot, the whole over the old 4 MiB bound.
    const first = await client.callService('agents.source', { id: child.id, offset: 0 });
    expect(first).toMatchObject({ id: child.id, offset: 0, done: false, nextOffset: LIMITS.clawSnapshotChunkBytes });
    expect(first.totalBytes).toBeGreaterThan(4 * 1024 * 1024);
    const second = await client.callService('agents.source', { id: child.id, offset: first.nextOffset, snapshot: first.snapshot });
    expect(second).toMatchObject({ snapshot: first.snapshot, offset: first.nextOffset, totalBytes: first.totalBytes });
    await expect(client.callService('agents.source', { id: child.id, offset: first.nextOffset, snapshot: 'no-such-snapshot' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(client.callService('agents.source', { id: child.id, offset: first.totalBytes + 1, snapshot: first.snapshot })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });

    // The CLI reads it all, checks it, and shows the messages.
    const inspected = await json<{ id: string; transcript: Array<{ role: string; content: Array<{ type: string; text?: string }> }> }>('agents', 'inspect', child.id, '--transcript');
    expect(inspected.id).toBe(child.id);
    const reply = inspected.transcript.filter((message) => message.role === 'assistant').flatMap((message) => message.content).find((part) => part.type === 'text');
    expect(reply?.text).toHaveLength(BIG_TEXT);
    expect(reply?.text?.startsWith('0:"é"')).toBe(true);
    const text = await claw('agents', 'inspect', child.id, '--transcript');
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout).toContain('transcript (redacted):');
    expect(text.stdout.length).toBeGreaterThan(BIG_TEXT);
  });

  it('previews an MCP resource and a prompt bigger than one frame, whole', async () => {
    expect((await claw('mcp', 'connect', 'large')).status).toBe(0);
    const uri = `large://blocks/${BLOCKS}`;
    const resource = await json<{ kind: string; uri: string; blocks: Array<{ text: string }> }>('mcp', 'read', 'large', uri);
    expect(resource).toMatchObject({ kind: 'resource', uri });
    expect(resource.blocks).toHaveLength(BLOCKS);
    expect(resource.blocks.at(-1)!.text).toBe(`line ${BLOCKS - 1}`);
    expect(Buffer.byteLength(JSON.stringify(resource))).toBeGreaterThan(LIMITS.clawFrameBytes);

    const prompt = await json<{ kind: string; messages: Array<{ role: string; block: { text: string } }> }>('mcp', 'prompt', 'large', 'many', JSON.stringify({ count: String(MESSAGES) }));
    expect(prompt.kind).toBe('prompt');
    expect(prompt.messages).toHaveLength(MESSAGES);
    expect(prompt.messages.at(-1)).toMatchObject({ role: 'assistant', block: { text: String(MESSAGES - 1) } });
    expect(Buffer.byteLength(JSON.stringify(prompt))).toBeGreaterThan(LIMITS.clawFrameBytes);

    // The wire: the first chunk says how big the whole is; a small preview is one chunk with its SHA-256.
    const first = await client.callService('mcp.read', { server: 'large', uri, offset: 0 });
    expect(first.totalBytes).toBeGreaterThan(LIMITS.clawFrameBytes);
    expect(first.done).toBe(false);
    const small = await client.callService('mcp.read', { server: 'large', uri: 'large://blocks/3', offset: 0 });
    expect(small).toMatchObject({ offset: 0, done: true, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(JSON.parse(Buffer.from(small.data, 'base64').toString('utf8')).blocks).toHaveLength(3);
    const shown = await claw('mcp', 'read', 'large', 'large://blocks/3');
    expect(shown.stdout).toContain('line 2');
  });

  it('leaves no spool file of the reads in the temp directory', () => {
    const tmp = process.env.TMPDIR ?? '/tmp';
    expect(fs.readdirSync(tmp).filter((name) => name.startsWith('xdog-read-'))).toEqual([]);
  });
});
