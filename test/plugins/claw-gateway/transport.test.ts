import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ErrorCodes, XdogError } from '../../../core/errors.js';
import { LIMITS } from '../../../core/limits.js';
import {
  LineFramer,
  RpcClient,
  RpcServer,
  checkRuntimeDir,
  ensurePrivateDir,
  ensureRuntimeDir,
  readOrCreateToken,
  readToken,
  type RpcHandler,
} from '../../../plugins/claw-gateway/transport/index.js';
import { RawPeer } from '../../support/raw-peer.js';
import { tempDir } from '../../support/temp.js';

const TOKEN = 'a'.repeat(64);
const PROTOCOL = 1;
const MiB = 1024 * 1024;

const servers: RpcServer[] = [];
const clients: RpcClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  RawPeer.destroyAll();
  for (const server of servers.splice(0)) await server.close();
});

function socketPath(): string {
  return path.join(tempDir('xdog-rpc-'), 'run', 'gateway.sock');
}

async function startServer(methods: Record<string, RpcHandler>, at = socketPath(), log?: (line: string) => void, cancellable?: string[]): Promise<{ server: RpcServer; socketPath: string }> {
  const server = new RpcServer({
    log,
    ...(cancellable ? { cancellable: new Set(cancellable) } : {}),
    socketPath: at,
    token: TOKEN,
    protocolVersion: PROTOCOL,
    capabilities: ['session-control:1'],
    methods: new Map(Object.entries(methods)),
    serverVersion: '9.9.9',
  });
  await server.listen();
  servers.push(server);
  return { server, socketPath: at };
}

async function connect(at: string, token = TOKEN): Promise<RpcClient> {
  const client = await RpcClient.connect({ socketPath: at, token, client: 'test', protocolVersion: PROTOCOL, timeoutMs: 10_000 });
  clients.push(client);
  return client;
}

const echo: RpcHandler = async (params) => params;

describe('hello', () => {
  it('with the right token answers the protocol, capabilities, methods and server', async () => {
    const { socketPath: at } = await startServer({ echo, 'session.list': echo });
    const client = await connect(at);
    expect(client.hello).toEqual({
      protocol: PROTOCOL,
      capabilities: ['session-control:1'],
      methods: ['echo', 'jobs.cancel', 'jobs.list', 'ping', 'session.list'],
      server: { pid: process.pid, version: '9.9.9' },
    });
    expect(await client.call('echo', { n: 1 })).toEqual({ n: 1 });
  });

  it('refuses a wrong token and closes only that connection', async () => {
    const { socketPath: at, server } = await startServer({ echo });
    const good = await connect(at);
    await expect(connect(at, 'b'.repeat(64))).rejects.toMatchObject({ code: ErrorCodes.UNAUTHENTICATED, message: 'wrong gateway token' });

    const raw = await RawPeer.open(at, TOKEN);
    const answer = await raw.hello('wrong');
    expect(answer).toMatchObject({ id: 0, error: { code: -32000, data: { code: 'UNAUTHENTICATED' } } });
    await raw.closed;

    expect(await good.call('echo', 'still here')).toBe('still here');
    expect(server.connectionCount).toBe(1);
  });

  it('refuses another protocol version with UNSUPPORTED', async () => {
    const { socketPath: at } = await startServer({ echo });
    const error = await RpcClient.connect({ socketPath: at, token: TOKEN, protocolVersion: PROTOCOL + 1, timeoutMs: 10_000 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCodes.UNSUPPORTED });
    expect((error as XdogError).message).toContain(`the gateway speaks protocol ${PROTOCOL}`);
  });

  it('refuses any request before hello, without closing the connection', async () => {
    let ran = 0;
    const { socketPath: at } = await startServer({ echo: async (p) => (ran++, p) });
    const raw = await RawPeer.open(at, TOKEN);
    const refused = await raw.request(1, 'echo', 'x');
    expect(refused).toMatchObject({ id: 1, error: { code: -32000, data: { code: 'UNAUTHENTICATED' } } });
    raw.send({ jsonrpc: '2.0', method: 'echo', params: 'notification' }); // ignored: no answer, not run
    expect(await raw.request(3, 'ping', {})).toMatchObject({ id: 3, error: { data: { code: 'UNAUTHENTICATED' } } });
    expect((await raw.hello()).result.methods).toEqual(['echo', 'jobs.cancel', 'jobs.list', 'ping']);
    expect(await raw.request(2, 'echo', 'y')).toMatchObject({ id: 2, result: 'y' });
    expect(ran).toBe(1);
  });

  it(`closes a connection that sends no hello within ${LIMITS.clawHelloTimeoutSeconds} s`, async () => {
    const { socketPath: at, server } = await startServer({ echo });
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    try {
      const silent = await RawPeer.open(at, TOKEN);
      const greeted = await RawPeer.open(at, TOKEN);
      while (server.connectionCount < 2) await nextTurn();
      await greeted.hello();
      vi.advanceTimersByTime(LIMITS.clawHelloTimeoutSeconds * 1000 - 1);
      expect(server.connectionCount).toBe(2);
      vi.advanceTimersByTime(1);
      await silent.closed;
      expect(await greeted.request(1, 'echo', 'kept')).toMatchObject({ result: 'kept' });
    } finally {
      vi.useRealTimers();
    }
  });

  it('refuses a second hello on the same connection', async () => {
    const { socketPath: at } = await startServer({ echo });
    const raw = await RawPeer.open(at, TOKEN);
    await raw.hello();
    expect(await raw.hello()).toMatchObject({ error: { data: { code: 'INVALID_STATE' } } });
  });

  it('rejects invalid hello params with -32602 and closes', async () => {
    const { socketPath: at } = await startServer({ echo });
    const raw = await RawPeer.open(at, TOKEN);
    const answer = await raw.request(0, 'hello', { token: TOKEN, protocol: 'one', client: 'bad\u0007name' });
    expect(answer.error.code).toBe(-32602);
    expect(answer.error.message).toContain('protocol');
    expect(answer.error.message).toContain('client');
    await raw.closed;
  });
});

describe('frames', () => {
  it('answers a malformed line with a parse error and keeps the connection', async () => {
    const { socketPath: at } = await startServer({ echo });
    const raw = await RawPeer.open(at, TOKEN);
    await raw.hello();
    raw.send('{"jsonrpc": "2.0", "id": 5, "method": \n');
    expect(await raw.next()).toMatchObject({ id: null, error: { code: -32700 } });
    raw.send('null\n');
    expect(await raw.next()).toMatchObject({ id: null, error: { code: -32600 } });
    raw.send('[{"jsonrpc":"2.0","id":1,"method":"echo"}]\n');
    expect(await raw.next()).toMatchObject({ id: null, error: { code: -32600, message: 'batches are not supported' } });
    raw.send(Buffer.from([0x22, 0xff, 0xfe, 0x22, 0x0a]));
    expect(await raw.next()).toMatchObject({ id: null, error: { code: -32700, message: 'parse error: the frame is not valid UTF-8' } });
    expect(await raw.request(6, 'echo', 'after')).toMatchObject({ id: 6, result: 'after' });
  });

  it('refuses a 10 MiB line while the same and another connection keep working, and another client keeps its stream', async () => {
    const streamed = 1000;
    const { socketPath: at } = await startServer({
      echo,
      stream: async (_params, connection) => {
        for (let i = 0; i < streamed; i++) {
          connection.notify('tick', { i });
          if (i % 10 === 0) await nextTurn();
        }
        return streamed;
      },
    });
    const watcher = await connect(at);
    const ticks: number[] = [];
    watcher.on('tick', (params) => ticks.push((params as { i: number }).i));

    const raw = await RawPeer.open(at, TOKEN);
    await raw.hello();
    const streaming = watcher.call('stream');
    raw.send(`{"jsonrpc":"2.0","id":7,"method":"echo","params":"${'x'.repeat(10 * MiB)}"}\n`);
    const refusal = await raw.next();
    expect(refusal).toMatchObject({ id: null, error: { code: -32600, data: { code: 'LIMIT_EXCEEDED' } } });
    expect(refusal.error.message).toContain(`${LIMITS.clawFrameBytes}-byte frame limit`);

    expect(await raw.request(8, 'echo', 'same connection')).toMatchObject({ id: 8, result: 'same connection' });
    expect(await streaming).toBe(streamed);
    expect(ticks).toEqual(Array.from({ length: streamed }, (_, i) => i));
    expect(await watcher.call('echo', 'other connection')).toBe('other connection');
  });

  it('refuses an answer too large for a frame with LIMIT_EXCEEDED instead of sending it', async () => {
    const { socketPath: at } = await startServer({ big: async () => 'x'.repeat(LIMITS.clawFrameBytes + 1), echo });
    const client = await connect(at);
    await expect(client.call('big')).rejects.toMatchObject({ code: ErrorCodes.LIMIT_EXCEEDED });
    expect(await client.call('echo', 1)).toBe(1);
  });
});

describe('methods', () => {
  it('answers an unknown method with -32601', async () => {
    const { socketPath: at } = await startServer({ echo });
    const raw = await RawPeer.open(at, TOKEN);
    await raw.hello();
    expect(await raw.request(1, 'nope')).toMatchObject({ id: 1, error: { code: -32601, data: { code: 'UNSUPPORTED' } } });
  });

  it('carries XdogError code and hint, maps INVALID_ARGUMENT to -32602 and hides other errors', async () => {
    const { socketPath: at } = await startServer({
      busy: async () => {
        throw new XdogError(ErrorCodes.BUSY, 'group main is running', { hint: 'wait or abort' });
      },
      invalid: async () => {
        throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'bad name');
      },
      crash: async () => {
        throw new Error('secret internals at /home/x');
      },
    });
    const client = await connect(at);
    await expect(client.call('busy')).rejects.toMatchObject({ code: 'BUSY', message: 'group main is running', hint: 'wait or abort' });
    const raw = await RawPeer.open(at, TOKEN);
    await raw.hello();
    expect(await raw.request(1, 'invalid')).toMatchObject({ error: { code: -32602, message: 'bad name', data: { code: 'INVALID_ARGUMENT' } } });
    const crash = await raw.request(2, 'crash');
    expect(crash.error).toMatchObject({ code: -32603, data: { code: 'INTERNAL' } });
    expect(JSON.stringify(crash)).not.toContain('secret');
  });

  it('runs requests on one connection concurrently', async () => {
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const { socketPath: at } = await startServer({
      wait: async () => {
        await released;
        return 'waited';
      },
      release: async () => {
        release();
        return 'released';
      },
    });
    const client = await connect(at);
    const waiting = client.call('wait');
    expect(await client.call('release')).toBe('released');
    expect(await waiting).toBe('waited');
  });

  it('answers ping with pong and its clock while a call on the same connection still waits', async () => {
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const { socketPath: at } = await startServer({ wait: async () => (await released, 'waited') });
    const client = await connect(at);
    const waiting = client.call('wait');
    const before = Date.now();
    const pong = (await client.call('ping', {})) as { pong: boolean; time: number };
    expect(pong.pong).toBe(true);
    expect(pong.time).toBeGreaterThanOrEqual(before);
    release();
    expect(await waiting).toBe('waited');
  });

  it('refuses methods named hello, ping or jobs.*: the server provides them', () => {
    for (const own of ['hello', 'ping', 'jobs.list', 'jobs.cancel']) {
      expect(() => new RpcServer({ socketPath: socketPath(), token: TOKEN, protocolVersion: PROTOCOL, capabilities: [], methods: new Map([[own, echo]]), serverVersion: '1' })).toThrow(`provides \`${own}\` itself`);
    }
  });

  it('runs a client notification only when a handler exists', async () => {
    const seen: unknown[] = [];
    const { socketPath: at } = await startServer({ note: async (p) => seen.push(p), echo });
    const raw = await RawPeer.open(at, TOKEN);
    await raw.hello();
    raw.send({ jsonrpc: '2.0', method: 'note', params: 1 });
    raw.send({ jsonrpc: '2.0', method: 'unknown', params: 2 });
    expect(await raw.request(3, 'echo', 'sync')).toMatchObject({ id: 3 });
    expect(seen).toEqual([1]);
  });
});

describe('jobs', () => {
  /** The next `count` frames by their id (answers to requests running at once come in either order). */
  async function framesById(raw: RawPeer, count: number): Promise<Map<unknown, any>> {
    const frames = new Map<unknown, any>();
    while (frames.size < count) {
      const frame = await raw.next();
      frames.set(frame.id, frame);
    }
    return frames;
  }

  /** A method that waits until its job is cancelled, and records why. */
  function waitForCancel(seen: string[]): RpcHandler {
    return (_params, _connection, job) =>
      new Promise((_resolve, reject) => {
        job.signal.addEventListener('abort', () => {
          seen.push((job.signal.reason as Error).message);
          reject(job.signal.reason);
        });
      });
  }

  it('lists a connection\'s running requests and cancels one by id or the newest; the handler hears it', async () => {
    const seen: string[] = [];
    const { socketPath: at } = await startServer({ wait: waitForCancel(seen), echo }, undefined, undefined, ['wait']);
    const raw = await RawPeer.open(at, TOKEN);
    await raw.hello();
    raw.send({ jsonrpc: '2.0', id: 'a', method: 'wait', params: { n: 1 } });
    raw.send({ jsonrpc: '2.0', id: 'b', method: 'wait', params: { n: 2 } });
    const listed = await raw.request(3, 'jobs.list', {});
    expect(listed.result.jobs.map((job: { id: unknown; method: string; cancellable: boolean }) => [job.id, job.method, job.cancellable])).toEqual([['a', 'wait', true], ['b', 'wait', true]]);
    // Without an id: the newest job, the most specific wait.
    raw.send({ jsonrpc: '2.0', id: 4, method: 'jobs.cancel', params: {} });
    const first = await framesById(raw, 2);
    expect(first.get(4).result).toMatchObject({ cancelled: true, job: { id: 'b', method: 'wait' } });
    expect(first.get('b')).toMatchObject({ error: { data: { code: 'ABORTED' } } });
    raw.send({ jsonrpc: '2.0', id: 5, method: 'jobs.cancel', params: { id: 'a' } });
    const second = await framesById(raw, 2);
    expect(second.get(5).result).toMatchObject({ cancelled: true, job: { id: 'a' } });
    expect(second.get('a')).toMatchObject({ error: { message: 'wait was cancelled: cancelled by the client (jobs.cancel)', data: { code: 'ABORTED' } } });
    expect(seen).toEqual(['wait was cancelled: cancelled by the client (jobs.cancel)', 'wait was cancelled: cancelled by the client (jobs.cancel)']);
    expect((await raw.request(6, 'jobs.cancel', {})).result).toEqual({ cancelled: false, reason: 'no cancellable request is running on this connection' });
    expect((await raw.request(7, 'jobs.list', {})).result).toEqual({ jobs: [] });
    expect(await raw.request(8, 'jobs.cancel', { id: 'a', extra: 1 })).toMatchObject({ id: 8, error: { data: { code: 'INVALID_ARGUMENT' } } });
  });

  it('answers a cancelled request at once even when its handler ignores the signal', async () => {
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const { socketPath: at } = await startServer({ stubborn: async () => (await released, 'too late') }, undefined, undefined, ['stubborn']);
    const raw = await RawPeer.open(at, TOKEN);
    await raw.hello();
    raw.send({ jsonrpc: '2.0', id: 1, method: 'stubborn' });
    raw.send({ jsonrpc: '2.0', id: 2, method: 'jobs.cancel', params: { id: 1 } });
    const answers = await framesById(raw, 2);
    expect(answers.get(2).result).toMatchObject({ cancelled: true });
    expect(answers.get(1)).toMatchObject({ error: { data: { code: 'ABORTED' } } });
    release();
    // Its late result is never sent: the next frame is the answer to the next request.
    expect(await raw.request(3, 'jobs.list', {})).toEqual({ jsonrpc: '2.0', id: 3, result: { jobs: [] } });
  });

  it('never cancels a method that changes state: it runs to its end and answers as usual', async () => {
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const { socketPath: at } = await startServer({ change: async () => (await released, 'changed') });
    const raw = await RawPeer.open(at, TOKEN);
    await raw.hello();
    raw.send({ jsonrpc: '2.0', id: 1, method: 'change' });
    await expect.poll(async () => (await raw.request(2, 'jobs.list', {})).result.jobs).toMatchObject([{ id: 1, method: 'change', cancellable: false }]);
    expect((await raw.request(3, 'jobs.cancel', { id: 1 })).result).toMatchObject({ cancelled: false, job: { id: 1 }, reason: 'change changes state, so it runs to its end' });
    expect((await raw.request(4, 'jobs.cancel', {})).result).toMatchObject({ cancelled: false });
    release();
    expect(await raw.next()).toEqual({ jsonrpc: '2.0', id: 1, result: 'changed' });
  });

  it('refuses a request id already running on the connection, and keeps the running one', async () => {
    const { socketPath: at } = await startServer({ wait: waitForCancel([]) }, undefined, undefined, ['wait']);
    const raw = await RawPeer.open(at, TOKEN);
    await raw.hello();
    raw.send({ jsonrpc: '2.0', id: 7, method: 'wait' });
    expect(await raw.request(7, 'wait', {})).toMatchObject({ id: 7, error: { message: 'request id 7 is already in use by a running wait', data: { code: 'INVALID_ARGUMENT' } } });
    expect((await raw.request(8, 'jobs.list', {})).result.jobs).toHaveLength(1);
  });

  it(`refuses more than LIMITS.clawConnectionJobs (${LIMITS.clawConnectionJobs}) running requests on one connection`, async () => {
    const { socketPath: at } = await startServer({ wait: waitForCancel([]) });
    const raw = await RawPeer.open(at, TOKEN);
    await raw.hello();
    for (let id = 1; id <= LIMITS.clawConnectionJobs; id++) raw.send({ jsonrpc: '2.0', id, method: 'wait' });
    expect(await raw.request(100_000, 'wait', {})).toMatchObject({ id: 100_000, error: { data: { code: 'LIMIT_EXCEEDED' } } });
    expect((await raw.request(100_001, 'jobs.list', {})).result.jobs).toHaveLength(LIMITS.clawConnectionJobs);
  });

  it('cancels a connection\'s jobs when it closes, and no other connection\'s', async () => {
    const seen: string[] = [];
    const { socketPath: at } = await startServer({ wait: waitForCancel(seen) });
    // Not cancellable by jobs.cancel, yet its signal fires when the connection closes.
    const leaving = await RawPeer.open(at, TOKEN);
    await leaving.hello();
    const staying = await RawPeer.open(at, TOKEN);
    await staying.hello();
    leaving.send({ jsonrpc: '2.0', id: 1, method: 'wait' });
    staying.send({ jsonrpc: '2.0', id: 1, method: 'wait' });
    await expect.poll(async () => (await staying.request(2, 'jobs.list', {})).result.jobs.length).toBe(1);
    await expect.poll(async () => (await leaving.request(3, 'jobs.list', {})).result.jobs.length).toBe(1);
    leaving.socket.destroy();
    await expect.poll(() => seen).toEqual(['wait was cancelled: the connection closed']);
    expect((await staying.request(4, 'jobs.list', {})).result.jobs).toHaveLength(1);
  });

  it('a client call given a signal tells the gateway: a wait fails ABORTED and stops, a change answers as usual', async () => {
    const seen: string[] = [];
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const { socketPath: at } = await startServer({ wait: waitForCancel(seen), echo, change: async () => (await released, 'changed') }, undefined, undefined, ['wait']);
    const client = await connect(at);
    const controller = new AbortController();
    const call = client.call('wait', {}, { signal: controller.signal });
    await expect.poll(async () => ((await client.call('jobs.list', {})) as { jobs: unknown[] }).jobs.length).toBe(1);
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: ErrorCodes.ABORTED, message: 'wait was cancelled: cancelled by the client (jobs.cancel)' });
    expect(seen).toEqual(['wait was cancelled: cancelled by the client (jobs.cancel)']);
    expect(await client.call('jobs.list', {})).toEqual({ jobs: [] });
    const changing = new AbortController();
    const change = client.call('change', {}, { signal: changing.signal });
    await expect.poll(async () => ((await client.call('jobs.list', {})) as { jobs: unknown[] }).jobs.length).toBe(1);
    changing.abort();
    setTimeout(release, 200);
    expect(await change).toBe('changed');
    // An already-aborted signal sends nothing.
    await expect(client.call('echo', 1, { signal: controller.signal })).rejects.toMatchObject({ code: ErrorCodes.ABORTED });
  });
});

describe('client', () => {
  it('refuses a method the gateway did not advertise without sending it', async () => {
    const at = socketPath();
    ensurePrivateDir(path.dirname(at));
    const received: string[] = [];
    // A stand-in gateway that records every frame it gets.
    const fake = net.createServer((socket) => {
      let buffer = '';
      socket.setEncoding('utf8');
      socket.on('data', (text: string) => {
        buffer += text;
        let newline: number;
        while ((newline = buffer.indexOf('\n')) !== -1) {
          const request = JSON.parse(buffer.slice(0, newline));
          buffer = buffer.slice(newline + 1);
          received.push(request.method);
          const result = request.method === 'hello' ? { protocol: PROTOCOL, capabilities: [], methods: ['echo'], server: { pid: 1, version: 'x' } } : request.params;
          socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: request.id, result })}\n`);
        }
      });
    });
    await new Promise<void>((resolve) => fake.listen(at, resolve));
    try {
      const client = await connect(at);
      await expect(client.call('session.delete', {})).rejects.toMatchObject({ code: ErrorCodes.UNSUPPORTED });
      expect(await client.call('echo', 'ok')).toBe('ok');
      expect(received).toEqual(['hello', 'echo']);
      client.close();
    } finally {
      await new Promise<void>((resolve) => fake.close(() => resolve()));
    }
  });

  it('fails a pending call with UNAVAILABLE when the connection closes, and never resends it', async () => {
    let runs = 0;
    const { socketPath: at } = await startServer({
      hang: async (_params, connection) => {
        runs++;
        setImmediate(() => connection.close());
        return new Promise(() => {});
      },
    });
    const client = await connect(at);
    const error = await client.call('hang').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCodes.UNAVAILABLE });
    expect((error as XdogError).message).toBe('the connection to the gateway closed before the answer arrived');
    expect((error as XdogError).hint).toContain('ask the gateway for state');
    expect(client.closed).toBe(true);
    await expect(client.call('hang')).rejects.toMatchObject({ code: ErrorCodes.UNAVAILABLE });
    expect(runs).toBe(1);
  });

  it('says no gateway is running when the socket does not exist or refuses', async () => {
    const at = socketPath();
    const error = await connect(at).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCodes.UNAVAILABLE, message: `no gateway is running at ${at}` });
    expect((error as XdogError).hint).toContain('xdog claw gateway start');
  });
});

/** A value nested `depth` levels deep: JSON.stringify overflows the stack on it. */
function nested(depth: number): unknown[] {
  let value: unknown[] = [];
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

describe('server', () => {
  it('answers a result that cannot be encoded with INTERNAL, logs its stack, and keeps serving', async () => {
    const log: string[] = [];
    const { socketPath: at } = await startServer({ echo, deep: async () => nested(100_000) }, socketPath(), (line) => log.push(line));
    const client = await connect(at);
    await expect(client.call('deep', {})).rejects.toMatchObject({ code: ErrorCodes.INTERNAL, message: 'internal error in deep' });
    expect(log.join('\n')).toMatch(/internal error encoding the answer of deep on connection \d+: RangeError: Maximum call stack size exceeded\n\s+at /);
    expect(await client.call('echo', 'same connection')).toBe('same connection');
    expect(await (await connect(at)).call('echo', 'another')).toBe('another');
  });

  it('closes only the connection a notification that cannot be encoded was meant for, and logs it', async () => {
    const log: string[] = [];
    let sent: boolean | undefined;
    const { socketPath: at } = await startServer(
      {
        echo,
        deepNotify: async (_params, connection) => {
          sent = connection.notify('deep', nested(100_000));
          return 'notified';
        },
      },
      socketPath(),
      (line) => log.push(line),
    );
    const other = await connect(at);
    const raw = await RawPeer.open(at, TOKEN);
    await raw.hello();
    raw.send({ jsonrpc: '2.0', id: 1, method: 'deepNotify' });
    await raw.closed;
    expect(sent).toBe(false);
    expect(log.join('\n')).toMatch(/connection \d+ closed: a deep notification could not be encoded \(.*Maximum call stack/);
    expect(await other.call('echo', 'unaffected')).toBe('unaffected');
  });

  it('serves at most LIMITS.clawConnections connections; an extra one is told why and closed', async () => {
    const { socketPath: at, server } = await startServer({ echo });
    const held: RawPeer[] = [];
    // Each says hello: connections still waiting for theirs have a smaller limit of their own.
    for (let i = 0; i < LIMITS.clawConnections; i++) {
      held.push(await RawPeer.open(at, TOKEN));
      await held[i]!.hello();
    }
    const error = await connect(at).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCodes.UNAVAILABLE });
    expect((error as XdogError).message).toContain(`${LIMITS.clawConnections} connections`);
    expect(await held[0]!.request(1, 'echo', 'served')).toMatchObject({ result: 'served' });

    held[1]!.socket.destroy();
    await held[1]!.closed;
    while (server.connectionCount >= LIMITS.clawConnections) await nextTurn();
    expect(await (await connect(at)).call('echo', 'room again')).toBe('room again');
  });

  it('makes room for a new connection by closing the one that waited longest for its hello, when all places are taken', async () => {
    const { socketPath: at, server } = await startServer({ echo });
    const waiting = LIMITS.clawPreAuthConnections / 2;
    const greeted: RawPeer[] = [];
    for (let i = 0; i < LIMITS.clawConnections - waiting; i++) {
      greeted.push(await RawPeer.open(at, TOKEN));
      await greeted[i]!.hello();
    }
    const idle: RawPeer[] = [];
    for (let i = 0; i < waiting; i++) idle.push(await RawPeer.open(at, TOKEN));
    while (server.connectionCount < LIMITS.clawConnections) await nextTurn();
    // All places taken, some by idle sockets: the newcomer gets in, the oldest idle one is told why and closed.
    expect(await (await connect(at)).call('echo', 'in')).toBe('in');
    expect(await idle[0]!.next()).toMatchObject({
      id: null,
      error: { message: `the gateway already serves ${LIMITS.clawConnections} connections, its limit, ${waiting} of them waiting for their hello; this one waited longest and is closed`, data: { code: 'UNAVAILABLE' } },
    });
    await idle[0]!.closed;
    expect(await greeted[0]!.request(1, 'echo', 'kept')).toMatchObject({ result: 'kept' });
  });

  it('disconnects a client that never reads once its backlog passes the limit, while others continue', async () => {
    const chunk = 'x'.repeat(64 * 1024);
    let flood: Promise<{ sent: number; closed: boolean }> | undefined;
    const { socketPath: at } = await startServer({
      echo,
      flood: async (_params, connection) => {
        flood = (async () => {
          let sent = 0;
          // Bounded so a broken limit fails the test instead of hanging it.
          while (sent < 2000 && connection.notify('chunk', chunk)) {
            sent++;
            if (sent % 16 === 0) await nextTurn();
          }
          return { sent, closed: connection.closed };
        })();
        return 'flooding';
      },
    });
    const other = await connect(at);
    const slow = await RawPeer.open(at, TOKEN);
    await slow.hello();
    slow.send({ jsonrpc: '2.0', id: 1, method: 'flood' });
    slow.socket.pause();
    while (!flood) await nextTurn();
    const result = await flood;
    expect(result.closed).toBe(true);
    expect(result.sent).toBeLessThan(2000);
    expect(result.sent * chunk.length).toBeGreaterThan(LIMITS.clawClientBacklogBytes - chunk.length);
    expect(await other.call('echo', 'unaffected')).toBe('unaffected');
  });

  it('sends a notification over the frame limit in parts that the client joins, in order with the rest', async () => {
    const big = 'é"\n'.repeat(4 * MiB);
    const { socketPath: at } = await startServer({
      burst: async (_params, connection) => {
        connection.notify('note', { n: 1 });
        connection.notify('note', { n: 2, big });
        connection.notify('note', { n: 3 });
        return 'sent';
      },
    });
    const client = await connect(at);
    const seen: Array<{ n: number; big?: string }> = [];
    client.on('note', (params) => seen.push(params as { n: number; big?: string }));
    expect(await client.call('burst')).toBe('sent');
    while (seen.length < 3) await nextTurn();
    expect(seen.map((note) => note.n)).toEqual([1, 2, 3]);
    expect(seen[1]!.big === big).toBe(true);
  });

  it('merges the mergeable notifications waiting for a client that is behind; the joined text is exact', async () => {
    const words = Array.from({ length: 200_000 }, (_, index) => `w${index} `);
    const { socketPath: at } = await startServer({
      stream: async (_params, connection) => {
        // Without yielding: the socket cannot drain, so the client falls behind at once.
        for (const word of words) connection.notify('delta', { text: word }, { key: 'k', text: word, build: (text) => ({ text }) });
        connection.notify('done', {});
        return 'streamed';
      },
    });
    const client = await connect(at);
    let text = '';
    let deltas = 0;
    let done = false;
    client.on('delta', (params) => {
      text += (params as { text: string }).text;
      deltas++;
    });
    client.on('done', () => (done = true));
    await client.call('stream');
    while (!done) await nextTurn();
    expect(text).toBe(words.join(''));
    expect(deltas).toBeLessThan(words.length);
  });

  it('ends a connection whose notification parts do not follow each other', async () => {
    const { socketPath: at } = await startServer({
      broken: async (_params, connection) => {
        const server = connection as unknown as { send(message: unknown, what: string): boolean };
        server.send({ jsonrpc: '2.0', method: 'notification.part', params: { id: 1, offset: 0, totalBytes: 10, data: Buffer.from('{"a"').toString('base64'), last: false } }, 'a part');
        server.send({ jsonrpc: '2.0', method: 'notification.part', params: { id: 2, offset: 0, totalBytes: 4, data: Buffer.from('{}  ').toString('base64'), last: true } }, 'a part');
        return 'sent';
      },
    });
    const client = await connect(at);
    await expect(client.call('broken')).rejects.toMatchObject({ code: ErrorCodes.UNAVAILABLE, message: expect.stringContaining('started before notification 1 ended') });
    expect(client.closed).toBe(true);
  });

  it('replaces a stale socket file and refuses to start beside a live server', async () => {
    const at = socketPath();
    ensurePrivateDir(path.dirname(at));
    const killed = spawnSync(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(at)}, () => process.kill(process.pid, 'SIGKILL'))`]);
    expect(killed.signal).toBe('SIGKILL');
    expect(fs.lstatSync(at).isSocket()).toBe(true);

    await startServer({ echo }, at);
    expect(await (await connect(at)).call('echo', 'fresh')).toBe('fresh');
    const second = new RpcServer({ socketPath: at, token: TOKEN, protocolVersion: PROTOCOL, capabilities: [], methods: new Map(), serverVersion: '1' });
    await expect(second.listen()).rejects.toMatchObject({ code: ErrorCodes.CONFLICT });
    expect(await clients[0]!.call('echo', 'first still serves')).toBe('first still serves');
  });

  it('makes the socket 0600 and removes it on close', async () => {
    const { server, socketPath: at } = await startServer({ echo });
    expect(fs.statSync(at).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(at)).mode & 0o777).toBe(0o700);
    await server.close();
    expect(fs.existsSync(at)).toBe(false);
  });
});

describe('private files', () => {
  it('creates the runtime directory 0700, tightens our own and refuses a symlink', () => {
    const root = tempDir('xdog-priv-');
    const dir = path.join(root, 'a', 'run');
    ensurePrivateDir(dir);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    fs.chmodSync(dir, 0o755);
    ensurePrivateDir(dir);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    const link = path.join(root, 'link');
    fs.symlinkSync(dir, link);
    expect(() => ensurePrivateDir(link)).toThrow(/is a symlink/);
  });

  it.skipIf(process.getuid?.() !== 0)('refuses a directory or token owned by another user', () => {
    const dir = path.join(tempDir('xdog-priv-'), 'run');
    ensurePrivateDir(dir);
    fs.chownSync(dir, 65534, 65534);
    expect(() => ensurePrivateDir(dir)).toThrow(/belongs to uid 65534/);
    const file = path.join(tempDir('xdog-priv-'), 'token');
    readOrCreateToken(file);
    fs.chownSync(file, 65534, 65534);
    expect(() => readToken(file)).toThrow(/belongs to uid 65534/);
  });

  /** The error `work` throws (it must throw an XdogError). */
  function refusalOf(work: () => void): XdogError {
    let error: unknown;
    try {
      work();
    } catch (caught) {
      error = caught;
    }
    expect(XdogError.is(error), 'refused').toBe(true);
    return error as XdogError;
  }

  it('creates the runtime root 0700 and refuses one open to others, for the gateway and for clients, naming the path and the fix', () => {
    const root = path.join(tempDir('xdog-priv-'), 'xdog-1000');
    const dir = path.join(root, 'claw');
    ensureRuntimeDir(root, dir);
    expect(fs.statSync(root).mode & 0o777).toBe(0o700);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(() => checkRuntimeDir(root, dir)).not.toThrow();
    fs.chmodSync(root, 0o777);
    for (const refused of [refusalOf(() => ensureRuntimeDir(root, dir)), refusalOf(() => checkRuntimeDir(root, dir))]) {
      expect(refused.code).toBe(ErrorCodes.INVALID_STATE);
      expect(refused.message).toBe(`the runtime directory ${root} has mode 0777, not 0700`);
      expect(refused.hint).toContain(`chmod 700 ${root}`);
      expect(refused.hint).toContain('XDG_RUNTIME_DIR');
    }
    // refused, not tightened: it stays as it was found
    expect(fs.statSync(root).mode & 0o777).toBe(0o777);
    // a missing root is no refusal for a client (reading the token then says no gateway runs)
    expect(() => checkRuntimeDir(path.join(root, 'missing'), path.join(root, 'missing', 'claw'))).not.toThrow();
  });

  it('refuses a runtime root that is a symlink, even to a private directory of ours', () => {
    const base = tempDir('xdog-priv-');
    const target = path.join(base, 'elsewhere');
    fs.mkdirSync(target, { mode: 0o700 });
    const root = path.join(base, 'xdog-1000');
    fs.symlinkSync(target, root);
    for (const refused of [refusalOf(() => ensureRuntimeDir(root, path.join(root, 'claw'))), refusalOf(() => checkRuntimeDir(root, path.join(root, 'claw')))]) {
      expect(refused.message).toBe(`the runtime directory ${root} is a symlink`);
      expect(refused.hint).toContain(`rm ${root}`);
    }
    expect(fs.readdirSync(target)).toEqual([]);
  });

  it.skipIf(process.getuid?.() !== 0)("refuses a runtime root owned by another user, and a client refuses a gateway folder open to others", () => {
    const root = path.join(tempDir('xdog-priv-'), 'xdog-1000');
    fs.mkdirSync(root, { mode: 0o700 });
    fs.chownSync(root, 65534, 65534);
    for (const refused of [refusalOf(() => ensureRuntimeDir(root, path.join(root, 'claw'))), refusalOf(() => checkRuntimeDir(root, path.join(root, 'claw')))]) {
      expect(refused.message).toBe(`the runtime directory ${root} belongs to uid 65534, not to you (uid 0)`);
      expect(refused.hint).toContain(`rm -r ${root}`);
    }
    fs.chownSync(root, 0, 0);
    const dir = path.join(root, 'claw');
    ensureRuntimeDir(root, dir);
    fs.chmodSync(dir, 0o755);
    expect(refusalOf(() => checkRuntimeDir(root, dir)).message).toBe(`the gateway's private directory ${dir} has mode 0755, open to others`);
  });

  it('creates a 0600 random token once and reads it back', () => {
    const dir = tempDir('xdog-priv-');
    const file = path.join(dir, 'token');
    const token = readOrCreateToken(file);
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(readOrCreateToken(file)).toBe(token);
    expect(readToken(file)).toBe(token);
    expect(readOrCreateToken(path.join(dir, 'other'))).not.toBe(token);
    expect(fs.readdirSync(dir).sort()).toEqual(['other', 'token']);
  });

  it('refuses a group-readable or malformed token file, and names a missing one', () => {
    const dir = tempDir('xdog-priv-');
    const file = path.join(dir, 'token');
    readOrCreateToken(file);
    fs.chmodSync(file, 0o640);
    expect(() => readToken(file)).toThrow(/readable by others \(mode 640\)/);
    expect(() => readOrCreateToken(file)).toThrow(XdogError);
    fs.writeFileSync(path.join(dir, 'short'), 'abc\n', { mode: 0o600 });
    expect(() => readOrCreateToken(path.join(dir, 'short'))).toThrow(/not a 64-character hex token/);
    const missing = path.join(dir, 'missing');
    let error: unknown;
    try {
      readToken(missing);
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ code: ErrorCodes.UNAVAILABLE, message: `there is no gateway token at ${missing}` });
    expect((error as XdogError).hint).toContain('xdog claw gateway start');
  });
});

describe('LineFramer', () => {
  function frame(max: number, chunks: string[]): Array<string | number> {
    const out: Array<string | number> = [];
    const framer = new LineFramer(max, { line: (line) => out.push(line.toString()), oversized: (seen) => out.push(seen) });
    for (const chunk of chunks) framer.push(Buffer.from(chunk));
    return out;
  }

  it('joins lines split across chunks and skips empty lines and \\r', () => {
    expect(frame(10, ['ab', 'c\n\nd', 'e\r\n'])).toEqual(['abc', 'de']);
  });

  it('reports an oversized line once, discards it up to its newline and reads on', () => {
    expect(frame(4, ['ok\n12', '345', '6789', '0\nnext\n'])).toEqual(['ok', 5, 'next']);
    expect(frame(4, ['1234\n12345\n'])).toEqual(['1234', 5]);
  });

  it('never holds more than the limit of a partial line', () => {
    const framer = new LineFramer(8, { line: () => {}, oversized: () => {} });
    framer.push(Buffer.from('12345678'));
    expect(framer.pendingBytes).toBe(8);
    framer.push(Buffer.from('9'));
    expect(framer.pendingBytes).toBe(0);
    framer.push(Buffer.from('still discarding'));
    expect(framer.pendingBytes).toBe(0);
  });
});
