/**
 * The claw gateway as a process: the built CLI's `xdog claw gateway run` with
 * the scripted faux model, driven by real socket clients.
 */
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import fs from 'node:fs';
import pg from 'pg';
import { afterEach, expect, it } from 'vitest';
import { XdogError } from '../../core/index.js';
import { collect, connect, startGateway, until, watch, type ClawSandbox, type GatewayProcess } from '../support/claw.js';
import { clawSandboxOn, describeStores, withSandboxStore } from '../support/stores.js';

const running: GatewayProcess[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((gateway) => gateway.stop()));
});

async function gatewayFor(sandbox: ClawSandbox): Promise<GatewayProcess> {
  const gateway = await startGateway(sandbox);
  running.push(gateway);
  return gateway;
}

const key = (): string => randomUUID();

/** The tables of a PostgreSQL database's public schema. */
async function tablesOf(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'");
    return rows.map((row) => row.name);
  } finally {
    await client.end();
  }
}

/** Sends a prompt and waits for its run to end; returns the run.end params. */
async function promptAndWait(client: Awaited<ReturnType<typeof connect>>, text: string): Promise<Record<string, any>> {
  const ends = collect(client, 'run.end');
  await client.call('subscribe', {});
  const receipt = await client.call('prompt', { text, idempotencyKey: key() });
  expect(['started', 'queued']).toContain(receipt.status);
  await until(() => ends.length > 0, `the run of "${text}" to end`);
  return ends[0]!;
}

/** Sends raw bytes on a fresh socket and returns the first answer line. */
function rawExchange(socketPath: string, bytes: Buffer | string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(socketPath);
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      received += chunk;
      const newline = received.indexOf('\n');
      if (newline >= 0) {
        socket.destroy();
        resolve(received.slice(0, newline));
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
    socket.write(bytes);
  });
}

describeStores('claw gateway', (kind) => {
  it('streams one run to two clients, queues a prompt sent while busy, and stores both turns', async () => {
    const sandbox = await clawSandboxOn(kind);
    await gatewayFor(sandbox);
    const first = await connect(sandbox, 'first');
    const second = await connect(sandbox, 'second');
    const firstEvents = collect(first, 'event');
    const secondEvents = collect(second, 'event');
    const ends = collect(first, 'run.end');
    await first.call('subscribe', {});
    await second.call('subscribe', {});

    const started = await first.call('prompt', { text: 'long 50', idempotencyKey: key() });
    expect(started.status).toBe('started');
    const queued = await second.call('prompt', { text: 'hello again', idempotencyKey: key() });
    expect(queued).toMatchObject({ status: 'queued', sessionId: started.sessionId });
    await until(() => ends.length === 2, 'both runs to end');

    expect(ends.map((end) => end.status)).toEqual(['completed', 'completed']);
    const strip = (events: Array<Record<string, any>>) => events.map((params) => JSON.stringify(params.event));
    expect(strip(secondEvents)).toEqual(strip(firstEvents));
    const texts = firstEvents.filter((params) => params.event.type === 'message_end' && params.event.message.role === 'assistant').map((params) => params.event.message.content[0].text);
    expect(texts[0]).toMatch(/^w0 w1 .* w49$/);
    expect(texts[1]).toBe('echo: hello again');

    const shown = await first.call('session.show', {});
    expect(shown.session.messageCount).toBe(4);
    await first.close();
    await second.close();
  });

  it('sends a first prompt to the active session another process made after the gateway read the group (a previous owner)', async () => {
    const sandbox = await clawSandboxOn(kind);
    await gatewayFor(sandbox);
    const made = await withSandboxStore(sandbox, kind, (store) => store.createSession('main', { model: 'faux/demo', activate: true }, { expectedActiveSessionId: null }));
    const client = await connect(sandbox);
    try {
      const end = await promptAndWait(client, 'hello');
      expect(end.status).toBe('completed');
      expect(end.sessionId).toBe(made.id);
    } finally {
      client.close();
    }
  });

  it('acknowledges a repeated idempotency key without running the prompt again', async () => {
    const sandbox = await clawSandboxOn(kind);
    await gatewayFor(sandbox);
    const client = await connect(sandbox);
    const ends = collect(client, 'run.end');
    await client.call('subscribe', {});
    const idempotencyKey = key();
    const first = await client.call('prompt', { text: 'once', idempotencyKey });
    const again = await client.call('prompt', { text: 'once', idempotencyKey });
    expect(first.status).toBe('started');
    expect(again.status).toBe('duplicate');
    await until(() => ends.length === 1, 'the run to end');
    expect(sandbox.requests()).toHaveLength(1);
    await client.close();
  });

  it('fork 2 then goto 1 give the next model request the right context', async () => {
    const sandbox = await clawSandboxOn(kind);
    await gatewayFor(sandbox);
    const client = await connect(sandbox);
    await promptAndWait(client, 'alpha');
    await promptAndWait(client, 'beta');
    const group = await client.call('group.status', {});
    const original = group.activeSessionId;

    const forked = await client.call('session.fork', { index: 2, expectedSessionId: original });
    expect(forked.parentSessionId).toBe(original);
    await client.call('session.goto', { index: 1, expectedSessionId: forked.id });
    await promptAndWait(client, 'gamma');

    const last = sandbox.requests().at(-1)!;
    expect(last.messages.map((message) => [message.role, message.content])).toEqual([
      ['user', 'alpha'],
      ['user', 'gamma'],
    ]);
    // The original session is untouched.
    const source = await client.call('session.show', { sessionId: original });
    expect(source.session.messageCount).toBe(4);
    await client.close();
  });

  it('refuses a checkpoint between a tool call and its result, and a stale expected session', async () => {
    const sandbox = await clawSandboxOn(kind);
    await gatewayFor(sandbox);
    const client = await connect(sandbox);
    await promptAndWait(client, 'run echo hi');
    const { activeSessionId } = await client.call('group.status', {});
    const shown = await client.call('session.show', {});
    expect(shown.checkpoints.map((checkpoint: { role: string; valid: boolean }) => [checkpoint.role, checkpoint.valid])).toEqual([
      ['user', true],
      ['assistant', false],
      ['toolResult', true],
      ['assistant', true],
    ]);
    await expect(client.call('session.fork', { index: 2, expectedSessionId: activeSessionId })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    const fresh = await client.call('session.new', { expectedSessionId: activeSessionId });
    await expect(client.call('session.goto', { index: 1, expectedSessionId: activeSessionId })).rejects.toMatchObject({ code: 'STALE' });
    expect((await client.call('group.status', {})).activeSessionId).toBe(fresh.id);
    await client.close();
  });

  it('refuses controls while a turn runs, from any connection, and accepts them once idle', async () => {
    const sandbox = await clawSandboxOn(kind);
    await gatewayFor(sandbox);
    const runner = await connect(sandbox, 'runner');
    const other = await connect(sandbox, 'other');
    const { events, ends } = await watch(runner);
    const receipt = await runner.call('prompt', { text: 'slow 1.5', idempotencyKey: key() });
    await until(() => events.some((params) => params.event.type === 'tool_start'), 'the slow tool to start');
    await expect(other.call('session.new', { expectedSessionId: receipt.sessionId })).rejects.toMatchObject({ code: 'BUSY' });
    await expect(runner.call('session.name', { name: 'x', expectedSessionId: receipt.sessionId })).rejects.toMatchObject({ code: 'BUSY' });
    await until(() => ends.length === 1, 'the slow run to end');
    const created = await other.call('session.new', { expectedSessionId: receipt.sessionId });
    expect(created.id).not.toBe(receipt.sessionId);
    await runner.close();
    await other.close();
  });

  it('delivers a steer at the next checkpoint and a follow-up after it, and bounds the queue', async () => {
    const sandbox = await clawSandboxOn(kind);
    await gatewayFor(sandbox);
    const client = await connect(sandbox);
    const { events, ends } = await watch(client);
    await client.call('prompt', { text: 'slow 2', idempotencyKey: key() });
    await until(() => events.some((params) => params.event.type === 'tool_start'), 'the tool to start');
    await client.call('follow_up', { text: 'B' });
    await client.call('steer', { text: 'A' });
    await expect(client.call('steer', { text: 'x'.repeat(65 * 1024) })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    const queue = await client.call('queue.list', {});
    expect(queue.map((item: { lane: string; text: string }) => [item.lane, item.text])).toEqual([
      ['steer', 'A'],
      ['followUp', 'B'],
    ]);
    for (let index = 0; index < 48; index++) await client.call('follow_up', { text: `f${index}` });
    await expect(client.call('follow_up', { text: 'one too many' })).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED' });
    for (const item of (await client.call('queue.list', {})).filter((entry: { text: string }) => /^f\d+$/.test(entry.text))) {
      await client.call('queue.remove', { id: item.id });
    }
    await until(() => ends.length === 1, 'the run to end');

    const requests = sandbox.requests();
    const userTexts = (request: (typeof requests)[number]) => request.messages.filter((message) => message.role === 'user').map((message) => message.content);
    // The request after the tool result carries the steer; the one after that the follow-up.
    const withSteer = requests.findIndex((request) => userTexts(request).includes('A'));
    const withFollowUp = requests.findIndex((request) => userTexts(request).includes('B'));
    expect(withSteer).toBeGreaterThan(0);
    expect(withFollowUp).toBeGreaterThan(withSteer);
    expect(userTexts(requests[withSteer]!)).not.toContain('B');
    await client.close();
  });

  it('refuses a wrong token, a malformed frame and a 10 MiB frame while another client streams on', async () => {
    const sandbox = await clawSandboxOn(kind);
    await gatewayFor(sandbox);
    const client = await connect(sandbox);
    const { events, ends } = await watch(client);
    await client.call('prompt', { text: 'long 3000', idempotencyKey: key() });

    const wrongToken = await rawExchange(sandbox.locations.socket, `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'hello', params: { token: 'nope', protocol: 1 } })}\n`);
    expect(JSON.parse(wrongToken).error).toBeDefined();
    const malformed = await rawExchange(sandbox.locations.socket, '{"jsonrpc": "2.0", "id": 1, "method": \n');
    expect(JSON.parse(malformed).error.code).toBe(-32700);
    const huge = Buffer.alloc(10 * 1024 * 1024 + 1, 0x61);
    huge[huge.length - 1] = 0x0a;
    const oversized = await rawExchange(sandbox.locations.socket, huge);
    expect(JSON.parse(oversized).error.message).toMatch(/MiB|bytes/);

    await until(() => ends.length === 1, 'the streaming run to end');
    expect(ends[0]!.status).toBe('completed');
    expect(events.filter((params) => params.event.type === 'message_update').length).toBeGreaterThan(100);
    expect(await client.call('group.status', {})).toMatchObject({ busy: false });
    await client.close();
  });

  it('keeps names, refuses bad ones, and keeps a per-session model across a restart', async () => {
    const sandbox = await clawSandboxOn(kind, `models:\n  - { id: faux/other }\n`);
    const gateway = await gatewayFor(sandbox);
    let client = await connect(sandbox);
    await promptAndWait(client, 'first');
    const { activeSessionId } = await client.call('group.status', {});
    await expect(client.call('session.name', { name: 'x'.repeat(257), expectedSessionId: activeSessionId })).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED' });
    await expect(client.call('session.name', { name: 'evil\u202Egnp.exe', expectedSessionId: activeSessionId })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await client.call('session.name', { name: 'Release notes', expectedSessionId: activeSessionId });
    await expect(client.call('session.model', { model: 'faux-nope/x', expectedSessionId: activeSessionId })).rejects.toMatchObject({ code: 'MODEL_UNKNOWN' });
    await client.call('session.model', { model: 'faux/other', expectedSessionId: activeSessionId });
    await client.close();
    await gateway.stop();
    running.splice(running.indexOf(gateway), 1);

    await gatewayFor(sandbox);
    client = await connect(sandbox);
    const shown = await client.call('session.show', {});
    expect(shown.session.name).toBe('Release notes');
    expect(shown.state.model).toBe('faux/other');
    await promptAndWait(client, 'second');
    expect(sandbox.requests().at(-1)).toMatchObject({ model: 'other' });
    const fresh = await client.call('session.new', { expectedSessionId: activeSessionId });
    expect((await client.call('session.show', { sessionId: fresh.id })).state.model).toBe('faux/demo');
    await client.call('session.resume', { sessionId: activeSessionId, expectedSessionId: fresh.id });
    await client.call('session.name', { name: null, expectedSessionId: activeSessionId });
    expect((await client.call('session.show', {})).session.name).toBeNull();
    const found = await client.call('session.search', { query: 'first' });
    expect(found.map((session: { id: string }) => session.id)).toEqual([activeSessionId]);
    await client.close();
  });

  it('refuses to resume, fork, go to or branch a session whose saved model no provider serves, and changes nothing', async () => {
    const sandbox = await clawSandboxOn(kind);
    await gatewayFor(sandbox);
    const client = await connect(sandbox);
    try {
      await promptAndWait(client, 'alpha');
      const { activeSessionId } = await client.call('group.status', {});
      // Sessions saved with a model whose provider is gone (another process wrote them, as an older config would have).
      const orphan = await withSandboxStore(sandbox, kind, async (store) => {
        const copy = await store.fork(activeSessionId, 1);
        await store.updateState(copy.id, { model: 'gone/model' });
        await store.updateState(activeSessionId, { model: 'gone/model' });
        return copy.id;
      });
      const before = { sessions: await client.call('session.list', {}), tree: await client.call('session.tree', {}) };
      const refusal = { code: 'MODEL_UNKNOWN', message: expect.stringContaining('was saved with model gone/model, which this gateway cannot serve') };
      await expect(client.call('session.resume', { sessionId: orphan, expectedSessionId: activeSessionId })).rejects.toMatchObject(refusal);
      await expect(client.call('session.fork', { index: 1, expectedSessionId: activeSessionId })).rejects.toMatchObject(refusal);
      await expect(client.call('session.goto', { index: 1, expectedSessionId: activeSessionId })).rejects.toMatchObject(refusal);
      const firstEntry = before.tree.entries[0].id;
      await expect(client.call('session.branch', { entryId: firstEntry, expectedSessionId: activeSessionId })).rejects.toMatchObject(refusal);
      expect((await client.call('group.status', {})).activeSessionId).toBe(activeSessionId);
      expect(await client.call('session.list', {})).toEqual(before.sessions);
      expect(await client.call('session.tree', {})).toEqual(before.tree);
    } finally {
      client.close();
    }
  });

  it('reads a transcript in chunks that end with its SHA-256', async () => {
    const sandbox = await clawSandboxOn(kind);
    await gatewayFor(sandbox);
    const client = await connect(sandbox);
    await promptAndWait(client, 'long 20000');
    const parts: Buffer[] = [];
    let chunk = await client.call('transcript.read', { offset: 0 });
    parts.push(Buffer.from(chunk.data, 'base64'));
    while (!chunk.done) {
      chunk = await client.call('transcript.read', { offset: chunk.nextOffset, untilEntryId: chunk.untilEntryId });
      parts.push(Buffer.from(chunk.data, 'base64'));
    }
    expect(parts.length).toBeGreaterThan(1);
    const whole = Buffer.concat(parts);
    const { createHash } = await import('node:crypto');
    expect(createHash('sha256').update(whole).digest('hex')).toBe(chunk.sha256);
    const lines = whole.toString('utf8').trim().split('\n').map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({ type: 'xdog.claw.transcript', version: 1 });
    expect(lines.slice(1).map((entry) => entry.kind)).toEqual(['message', 'message']);
    await client.close();
  });

  it('after an abort in a tool call, the next request pairs that call and the run goes on', async () => {
    const sandbox = await clawSandboxOn(kind);
    await gatewayFor(sandbox);
    const client = await connect(sandbox);
    const { events, ends } = await watch(client);
    await client.call('prompt', { text: 'slow 30', idempotencyKey: key() });
    await until(() => events.some((params) => params.event.type === 'tool_start'), 'the tool to start');
    expect(await client.call('abort', {})).toEqual({ aborted: true });
    await until(() => ends.length === 1, 'the aborted run to end');
    expect(ends[0]).toMatchObject({ status: 'aborted' });
    await client.call('prompt', { text: 'next', idempotencyKey: key() });
    await until(() => ends.length === 2, 'the next run to end');
    expect(ends[1]).toMatchObject({ status: 'completed' });
    const roles = sandbox.requests().at(-1)!.messages.map((message) => message.role);
    expect(roles).toEqual(['user', 'assistant', 'toolResult', 'user']);
    await client.close();
  });

  it('never resends a prompt whose connection dropped before its receipt', async () => {
    const sandbox = await clawSandboxOn(kind);
    await gatewayFor(sandbox);
    const token = fs.readFileSync(sandbox.locations.token, 'utf8').trim();
    await new Promise<void>((resolve, reject) => {
      const socket = net.createConnection(sandbox.locations.socket);
      socket.on('error', reject);
      socket.on('data', (chunk) => {
        if (String(chunk).includes('"id":1')) {
          socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'prompt', params: { text: 'dropped', idempotencyKey: 'k-dropped' } })}\n`);
          // Gone before the receipt can arrive.
          socket.destroy();
          resolve();
        }
      });
      socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'hello', params: { token, protocol: 1 } })}\n`);
    });
    const client = await connect(sandbox);
    await until(async () => !(await client.call('group.status', {})).busy, 'the group to be idle');
    const runs = sandbox.requests().filter((request) => JSON.stringify(request.messages).includes('dropped'));
    expect(runs.length).toBeLessThanOrEqual(1);
    // The client asks for state instead of resending: a retry with the same key runs nothing.
    const retry = await client.call('prompt', { text: 'dropped', idempotencyKey: 'k-dropped' });
    if (runs.length === 1) expect(retry.status).toBe('duplicate');
    await until(async () => !(await client.call('group.status', {})).busy, 'the group to be idle again');
    expect(sandbox.requests().filter((request) => JSON.stringify(request.messages).includes('dropped')).length).toBe(1);
    await client.close();
  });

  it('refuses a second gateway on the same store and names the running one', async () => {
    const sandbox = await clawSandboxOn(kind);
    const first = await gatewayFor(sandbox);
    await expect(startGateway(sandbox)).rejects.toThrow(new RegExp(`pid ${first.child.pid}`));
  });

  it('answers UNAVAILABLE, never a resend, when no gateway runs', async () => {
    const sandbox = await clawSandboxOn(kind);
    await expect(connect(sandbox)).rejects.toBeInstanceOf(XdogError);
    expect(fs.existsSync(sandbox.storeFile)).toBe(false);
    // Nor was the PostgreSQL store touched: its database is still empty.
    if (sandbox.database) expect(await tablesOf(sandbox.database.url)).toEqual([]);
  });
});
