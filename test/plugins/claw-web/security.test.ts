/**
 * The dashboard server's checks, against a real gateway process on the faux
 * model: a foreign Origin, a Host of evil.test, no cookie, a replayed login
 * link, an oversized body, a cross-site fetch, a form post and a WebSocket
 * upgrade from another origin are all refused, and nothing runs (the faux
 * model is never asked, no session is created). A same-origin call with the
 * cookie does run: the control that shows the refusals are the checks.
 */
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectGateway } from '../../../plugins/claw-gateway/client.js';
import { readToken } from '../../../core/rpc/index.js';
import { CONTENT_SECURITY_POLICY, startWebServer, type WebServer } from '../../../plugins/claw-web/index.js';
import { clawSandbox, startGateway, until, type ClawSandbox, type GatewayProcess } from '../../support/claw.js';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

let sandbox: ClawSandbox;
let gateway: GatewayProcess;
let web: WebServer;
let origin: string;
let host: string;
let cookie: string;

/** One request on a fresh connection, with exactly the headers given (Host included). */
function request(method: string, path: string, headers: Record<string, string>, body?: string | Buffer, agent: http.Agent | false = false): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const sent = http.request({ host: '127.0.0.1', port: web.port, method, path, headers: { host, ...headers }, agent, setHost: false }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: text }));
    });
    sent.on('error', reject);
    sent.end(body);
  });
}

const json = (value: unknown): string => JSON.stringify(value);
const page = (extra: Record<string, string> = {}): Record<string, string> => ({ origin, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json', ...extra });
const prompt = (text: string): string => json({ method: 'prompt', params: { text, idempotencyKey: `k-${text}` } });

async function link(): Promise<string> {
  const answer = await request('POST', '/api/link', { authorization: `Bearer ${readToken(sandbox.locations.token)}` });
  expect(answer.status).toBe(200);
  return JSON.parse(answer.body).url.split('#')[1];
}

async function sessionsOfMain(): Promise<number> {
  const client = await connectGateway({ locations: sandbox.locations });
  try {
    return ((await client.call('session.list', {})) as unknown[]).length;
  } finally {
    await client.close();
  }
}

/** Nothing reached the model and no session exists. */
async function nothingRan(): Promise<void> {
  expect(sandbox.requests()).toEqual([]);
  expect(await sessionsOfMain()).toBe(0);
}

beforeAll(async () => {
  sandbox = clawSandbox();
  gateway = await startGateway(sandbox);
  web = await startWebServer({ port: 0, connect: () => connectGateway({ client: 'web-test', locations: sandbox.locations }), gatewayToken: () => readToken(sandbox.locations.token) });
  host = `127.0.0.1:${web.port}`;
  origin = `http://${host}`;
});

afterAll(async () => {
  await web?.close();
  await gateway?.stop();
});

describe('claw web: every request is checked before anything runs', () => {
  it('serves the pages with a CSP that allows no inline script', async () => {
    const answer = await request('GET', '/', {});
    expect(answer.status).toBe(200);
    expect(answer.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe-inline');
    expect(answer.headers['x-frame-options']).toBe('DENY');
    expect(answer.body).toMatch(/<script type="module" crossorigin src="\/assets\/index-[\w-]+\.js"><\/script>/);
    expect(answer.body).not.toMatch(/<script(?![^>]*src=)[^>]*>/);
  });

  it('gives login links only for the gateway token, never to a page', async () => {
    expect((await request('POST', '/api/link', {})).status).toBe(401);
    expect((await request('POST', '/api/link', { authorization: `Bearer ${'0'.repeat(64)}` })).status).toBe(401);
    expect((await request('POST', '/api/link', { authorization: `Bearer ${readToken(sandbox.locations.token)}`, origin })).status).toBe(403);
  });

  it('a login link works once: the cookie is HttpOnly and SameSite=Strict, a replay is refused', async () => {
    const token = await link();
    const first = await request('POST', '/api/login', page(), json({ token }));
    expect(first.status).toBe(200);
    const setCookie = first.headers['set-cookie']![0];
    expect(setCookie).toMatch(/^xdog_web=[\w-]{43}; HttpOnly; SameSite=Strict; Path=\//);
    cookie = setCookie.split(';')[0];
    const replay = await request('POST', '/api/login', page(), json({ token }));
    expect(replay.status).toBe(401);
    expect(JSON.parse(replay.body).error.message).toContain('already used or has expired');
    expect(replay.headers['set-cookie']).toBeUndefined();
    expect((await request('GET', '/api/hello', { cookie, 'sec-fetch-site': 'same-origin' })).status).toBe(200);
  });

  it('refuses a call without the cookie, with a foreign Origin, with Host evil.test, from another site, as a form post or over the size limit', async () => {
    const refusals: Array<[string, Promise<Answer>, number]> = [
      ['no cookie', request('POST', '/api/call', page(), prompt('no-cookie')), 401],
      ['a wrong cookie', request('POST', '/api/call', page({ cookie: `xdog_web=${'A'.repeat(43)}` }), prompt('wrong-cookie')), 401],
      ['a foreign Origin', request('POST', '/api/call', page({ cookie, origin: 'http://evil.test' }), prompt('foreign-origin')), 403],
      ['a foreign port', request('POST', '/api/call', page({ cookie, origin: 'http://127.0.0.1:1' }), prompt('foreign-port')), 403],
      ['Origin null', request('POST', '/api/call', page({ cookie, origin: 'null' }), prompt('origin-null')), 403],
      ['no Origin', request('POST', '/api/call', { cookie, 'content-type': 'application/json' }, prompt('no-origin')), 403],
      ['Host evil.test', request('POST', '/api/call', page({ cookie, host: 'evil.test', origin: 'http://evil.test' }), prompt('evil-host')), 421],
      ['Host evil.test on a page', request('GET', '/', { host: 'evil.test' }), 421],
      ['a cross-site fetch', request('POST', '/api/call', page({ cookie, 'sec-fetch-site': 'cross-site' }), prompt('cross-site')), 403],
      ['a form post', request('POST', '/api/call', page({ cookie, 'content-type': 'text/plain' }), prompt('form')), 415],
      ['an oversized body', request('POST', '/api/call', page({ cookie }), Buffer.alloc(2 * 1024 * 1024, 0x20)), 413],
      ['an event stream from a foreign Origin', request('GET', '/api/events', { cookie, origin: 'http://evil.test' }), 403],
      ['an event stream without the cookie', request('GET', '/api/events', { 'sec-fetch-site': 'same-origin' }), 401],
    ];
    for (const [what, answer, status] of refusals) expect({ what, status: (await answer).status }).toEqual({ what, status });
    await nothingRan();
  });

  it('refuses a WebSocket upgrade from another origin (and every upgrade: events come over SSE)', async () => {
    const upgrade = (headers: Record<string, string>): Promise<string> =>
      new Promise((resolve, reject) => {
        const socket = net.connect(web.port, '127.0.0.1');
        let text = '';
        socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
        const lines = Object.entries({ host, upgrade: 'websocket', connection: 'Upgrade', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', 'sec-websocket-version': '13', ...headers }).map(([key, value]) => `${key}: ${value}`);
        socket.write(`GET /api/events HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`);
      });
    expect(await upgrade({ origin: 'http://evil.test', cookie })).toMatch(/^HTTP\/1\.1 403 /);
    expect(await upgrade({ host: 'evil.test', origin: 'http://evil.test', cookie })).toMatch(/^HTTP\/1\.1 421 /);
    expect(await upgrade({ origin })).toMatch(/^HTTP\/1\.1 401 /);
    expect(await upgrade({ origin, cookie })).toMatch(/^HTTP\/1\.1 400 /);
    await nothingRan();
  });

  it('limits the requests of one connection', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const statuses: number[] = [];
    for (let index = 0; index < 120; index++) statuses.push((await request('GET', '/api/hello', { cookie, 'sec-fetch-site': 'same-origin' }, undefined, agent)).status);
    agent.destroy();
    expect(statuses).toContain(429);
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(60);
  });

  it('runs a same-origin call with the cookie, and the gateway\'s own errors come back as they are', async () => {
    const started = await request('POST', '/api/call', page({ cookie }), prompt('hello from the page'));
    expect(started.status).toBe(200);
    expect(JSON.parse(started.body).result.status).toBe('started');
    await until(() => sandbox.requests().length === 1, 'the faux model to get the prompt');
    const stale = await request('POST', '/api/call', page({ cookie }), json({ method: 'session.new', params: { expectedSessionId: '00000000-0000-4000-8000-000000000000' } }));
    expect(stale.status).toBe(400);
    expect(JSON.parse(stale.body).error.code).toMatch(/STALE|BUSY/);
    const subscribe = await request('POST', '/api/call', page({ cookie }), json({ method: 'subscribe', params: {} }));
    expect(subscribe.status).toBe(400);
    expect(gateway.log()).not.toContain('INTERNAL');
  });
});

describe('claw web beyond loopback', () => {
  it('says so (exposed) and still answers only to its own address and the loopback names', async () => {
    const wide = await startWebServer({ host: '0.0.0.0', port: 0, connect: () => connectGateway({ client: 'web-test', locations: sandbox.locations }), gatewayToken: () => readToken(sandbox.locations.token) });
    try {
      expect(wide.exposed).toBe(true);
      expect(wide.url).toBe(`http://0.0.0.0:${wide.port}`);
      const get = (hostHeader: string): Promise<number> =>
        new Promise((resolve, reject) => {
          http.get({ host: '127.0.0.1', port: wide.port, path: '/', headers: { host: hostHeader }, setHost: false, agent: false }, (response) => resolve(response.resume().statusCode!)).on('error', reject);
        });
      expect(await get(`127.0.0.1:${wide.port}`)).toBe(200);
      expect(await get(`evil.test:${wide.port}`)).toBe(421);
      expect(await get(`192.168.1.20:${wide.port}`)).toBe(421);
    } finally {
      await wide.close();
    }
    expect(web.exposed).toBe(false);
  });
});
