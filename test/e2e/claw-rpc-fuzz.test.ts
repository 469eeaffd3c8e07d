/**
 * Hostile clients against one real gateway process: every method `hello`
 * lists (so a new method is covered without touching this file) gets
 * malformed, oversized and deeply nested params, and after each method's batch
 * the gateway must still be alive and serve a fresh client. Then sockets that
 * never say hello must not lock a real client out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../core/index.js';
import { readToken } from '../../plugins/claw-gateway/transport/index.js';
import { connect, startGateway, type ClawSandbox, type GatewayProcess } from '../support/claw.js';
import { RawPeer } from '../support/raw-peer.js';
import { clawSandboxOn } from '../support/stores.js';

/** Deep enough to overflow any recursive encoder or validator (V8's stack holds ~10k frames). */
const DEPTH = 100_000;
const deepArray = `${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}`;
const deepObject = `${'{"a":'.repeat(DEPTH)}1${'}'.repeat(DEPTH)}`;

/**
 * Methods that end the gateway on purpose would get only params that can never
 * validate; today none does (`gateway stop` is a signal, not a method), so every
 * listed method gets every variant.
 */
const ENDS_THE_GATEWAY = new Set<string>();

/** Params (as raw JSON text) that no method should take as valid, or that stress the parser and validator. */
function malformedParams(): Array<{ what: string; json: string }> {
  const cases: Array<{ what: string; params: unknown }> = [
    { what: 'a number', params: 42 },
    { what: 'a string', params: 'params' },
    { what: 'an array', params: [1, 'two', null] },
    { what: 'an empty array', params: [] },
    { what: 'false', params: false },
    { what: 'an extra key', params: { group: 'main', notAParam: true } },
    { what: 'an unknown group', params: { group: 'no-such-group' } },
    {
      what: 'wrong types for the common fields',
      params: { group: 7, sessionId: [], text: {}, id: null, name: 5, index: 'one', expectedSessionId: 3, entryId: -1, limit: 1.5, cursor: 'x' },
    },
    { what: 'nulls for the common fields', params: { group: null, sessionId: null, text: null, id: null, name: null, idempotencyKey: null } },
    { what: 'a prototype key', params: JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}') },
  ];
  return [
    ...cases.map(({ what, params }) => ({ what, json: JSON.stringify(params) })),
    { what: 'null', json: 'null' },
    { what: `an array nested ${DEPTH} deep`, json: deepArray },
    { what: `an object nested ${DEPTH} deep`, json: deepObject },
    { what: `a field nested ${DEPTH} deep`, json: `{"group":"main","text":${deepArray},"sessionId":${deepObject}}` },
    // Near the frame limit: the frame is read, parsed and validated.
    { what: 'a near-limit text', json: JSON.stringify({ group: 'main', text: 'x'.repeat(LIMITS.clawFrameBytes - 512), name: 'x', id: 'x', query: 'x' }) },
  ];
}

let sandbox: ClawSandbox;
let gateway: GatewayProcess;
let token: string;

beforeAll(async () => {
  sandbox = await clawSandboxOn('sqlite');
  gateway = await startGateway(sandbox);
  token = readToken(sandbox.locations.token);
}, 60_000);

afterAll(async () => {
  RawPeer.destroyAll();
  await gateway?.stop();
});

/** The gateway is alive and a fresh client's hello and status call are answered. */
async function servesAnotherClient(after: string): Promise<void> {
  expect(gateway.child.exitCode, `the gateway exited after ${after}:\n${gateway.log()}`).toBeNull();
  const client = await connect(sandbox, 'checker');
  try {
    expect(client.hello.methods).toContain('gateway.status');
    expect((await client.call('gateway.status', {})).pid).toBe(gateway.child.pid);
  } finally {
    await client.close();
  }
}

async function helloPeer(): Promise<RawPeer> {
  const peer = await RawPeer.open(sandbox.locations.socket, token);
  expect((await peer.hello()).result).toBeDefined();
  return peer;
}

describe('every protocol method under hostile params', { timeout: 600_000 }, () => {
  it('answers each request on its own connection and never ends the gateway', async () => {
    const first = await connect(sandbox, 'lister');
    const methods = first.hello.methods.filter((method: string) => !ENDS_THE_GATEWAY.has(method));
    await first.close();
    expect(methods).toEqual(expect.arrayContaining(['session.tree', 'session.show', 'prompt', 'transcript.read']));

    const variants = malformedParams();
    const overLimit = Buffer.alloc(LIMITS.clawFrameBytes + 1024, 'x');
    const internal: string[] = [];
    let id = 1;
    for (const method of methods) {
      const peer = await helloPeer();
      // The whole batch at once (requests on a connection run concurrently), then every answer, matched by id.
      const sent = new Map<number, string>();
      for (const { what, json } of variants) {
        const request = id++;
        sent.set(request, what);
        peer.send(`{"jsonrpc":"2.0","id":${request},"method":${JSON.stringify(method)},"params":${json}}\n`);
        // The same as a notification: no answer, and nothing breaks (the near-limit one only as a request, to keep the run short).
        if (json.length < LIMITS.clawFrameBytes / 2) peer.send(`{"jsonrpc":"2.0","method":${JSON.stringify(method)},"params":${json}}\n`);
      }
      for (let answered = 0; answered < variants.length; answered++) {
        const answer = await peer.next();
        expect(answer, `${method}: the connection closed with ${variants.length - answered} requests unanswered\n${gateway.log()}`).toBeDefined();
        const what = sent.get(answer.id);
        expect(what, `${method}: an answer to no request of the batch: ${JSON.stringify(answer).slice(0, 300)}`).toBeDefined();
        sent.delete(answer.id);
        expect(answer.result !== undefined || answer.error !== undefined, `${method} with ${what}: ${JSON.stringify(answer).slice(0, 300)}`).toBe(true);
        if (answer.error?.data?.code === 'INTERNAL') internal.push(`${method} with ${what}: ${answer.error.message}`);
      }
      // Over the frame limit: discarded and answered as such; the connection still works.
      peer.send(Buffer.concat([Buffer.from(`{"jsonrpc":"2.0","id":${id++},"method":${JSON.stringify(method)},"params":{"text":"`), overLimit, Buffer.from('"}}\n')]));
      const refused = await peer.next();
      expect(refused, `${method} over the frame limit`).toMatchObject({ id: null, error: { data: { code: 'LIMIT_EXCEEDED' } } });
      expect(await peer.request(id++, 'gateway.status', {}), `${method}: the connection after the batch`).toMatchObject({ result: { pid: gateway.child.pid } });
      peer.socket.destroy();
      await servesAnotherClient(`the batch of ${method}`);
    }
    expect(internal, 'hostile params are expected failures, never INTERNAL').toEqual([]);
  });

  it('answers hostile envelopes (deep ids, non-string methods, deep method names) with an error and keeps serving', async () => {
    const peer = await helloPeer();
    const envelopes = [
      `{"jsonrpc":"2.0","id":${deepArray},"method":"gateway.status","params":{}}`,
      `{"jsonrpc":"2.0","id":${deepObject},"method":"session.tree","params":{}}`,
      `{"jsonrpc":"2.0","id":{"a":1},"method":"gateway.status"}`,
      `{"jsonrpc":"2.0","id":1,"method":${deepArray}}`,
      `{"jsonrpc":"2.0","id":2,"method":${deepObject}}`,
      `{"jsonrpc":"2.0","id":3,"method":42}`,
      `{"jsonrpc":"2.0","id":4,"method":null}`,
      `{"jsonrpc":"1.0","id":5,"method":"gateway.status"}`,
      `{"id":6,"method":"gateway.status"}`,
      `{"jsonrpc":"2.0","id":7,"result":${deepArray}}`,
      `{"jsonrpc":"2.0","id":8,"error":${deepObject}}`,
      deepArray,
      deepObject,
    ];
    for (const envelope of envelopes) {
      peer.send(`${envelope}\n`);
      const answer = await peer.next();
      expect(answer, `${envelope.slice(0, 60)}: no answer\n${gateway.log()}`).toBeDefined();
      expect(answer.error, `${envelope.slice(0, 60)}`).toBeDefined();
      expect(answer.error.data.code).not.toBe('INTERNAL');
    }
    expect(await peer.request(100, 'gateway.status', {})).toMatchObject({ result: { pid: gateway.child.pid } });
    peer.socket.destroy();
    // hello itself with hostile params, before any authentication: refused, that connection closed.
    for (const params of [deepArray, deepObject, '{"token":[],"protocol":"1"}', `{"token":"${'x'.repeat(LIMITS.clawFrameBytes - 512)}","protocol":1}`]) {
      const stranger = await RawPeer.open(sandbox.locations.socket, token);
      stranger.send(`{"jsonrpc":"2.0","id":1,"method":"hello","params":${params}}\n`);
      expect((await stranger.next())?.error?.data?.code, `hello with ${params.slice(0, 40)}`).toBe('INVALID_ARGUMENT');
      await stranger.closed;
    }
    await servesAnotherClient('hostile envelopes');
  });
});

describe('connections that never say hello', { timeout: 120_000 }, () => {
  it(`hold at most ${LIMITS.clawPreAuthConnections} places: ${LIMITS.clawConnections + 16} idle sockets do not keep a real client out, and the ones over the limit are told why`, async () => {
    const idle: RawPeer[] = [];
    for (let i = 0; i < LIMITS.clawConnections + 16; i++) idle.push(await RawPeer.open(sandbox.locations.socket, token));
    // A real client gets in at once and is served, while the idle sockets are still there.
    await servesAnotherClient('the idle sockets');
    const refusals = (await Promise.all(idle.map(async (peer) => ({ peer, frame: await peer.next(LIMITS.clawHelloTimeoutSeconds * 1000 + 10_000) })))).filter(({ frame }) => frame);
    // Every idle socket is told why it is closed: over the limit of waiting connections, or no hello in time.
    expect(refusals.length).toBe(idle.length);
    const over = refusals.filter(({ frame }) => frame.error.message.includes(`${LIMITS.clawPreAuthConnections} connections waiting for their hello`));
    expect(over.length).toBeGreaterThanOrEqual(idle.length - LIMITS.clawPreAuthConnections);
    expect(over[0]!.frame).toMatchObject({ id: null, error: { data: { code: 'UNAVAILABLE', hint: expect.stringContaining('hello') } } });
    const late = refusals.filter((refusal) => !over.includes(refusal));
    for (const { frame } of late) expect(frame.error.message).toContain(`no hello within ${LIMITS.clawHelloTimeoutSeconds} s`);
    await Promise.all(idle.map((peer) => peer.closed));
    await servesAnotherClient('the idle sockets were closed');
  });
});
