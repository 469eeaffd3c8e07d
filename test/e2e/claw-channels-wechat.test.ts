/**
 * The WeChat channel against a local stand-in of the iLink bot API and a real
 * gateway process: QR login stores the token; replies go out per completed
 * assistant text with the conversation's context token and typing on until
 * the turn ends; 60 messages never make the inbox hold more than 50 — polling
 * pauses while the API still holds the rest — and all are answered in order;
 * the poll cursor is kept in the store, so a restart neither fetches again
 * what was taken nor sends anything twice.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { GatewayConnection } from '../../plugins/claw-gateway/index.js';
import type { ChannelStatus } from '../../plugins/channels/index.js';
import { clawSandbox, connect, startGateway, until, type GatewayProcess } from '../support/claw.js';
import { repoRoot } from '../support/cli.js';
import { startILinkStandin, type ILinkStandin } from '../support/ilink-standin.js';

function cli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(repoRoot, 'bin/run.js'), ...args], { env: { ...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: '1', ...env }, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('channels: WeChat against a stand-in of its bot API', { timeout: 180_000 }, () => {
  let standin: ILinkStandin | undefined;
  let gateway: GatewayProcess | undefined;
  let client: GatewayConnection | undefined;
  afterEach(async () => {
    await client?.close();
    await gateway?.stop();
    await standin?.close();
    client = gateway = standin = undefined;
  });

  it('logs in by QR code, answers per completed assistant text with typing, and pauses polling while the inbox is full (scenario 5)', async () => {
    standin = await startILinkStandin();
    const sandbox = clawSandbox(['  channels:', '    wx:', '      type: wechat', '      group: main', '      allow_from: [u1, u2]', '      settings:', `        base_url: "${standin.url}"`, ''].join('\n'));

    const login = await cli(['claw', 'channels', 'login', 'wx'], sandbox.env);
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toMatch(/[▀▄█]/);
    expect(login.stdout).toContain('logged in as bot bot-1');
    const credentials = JSON.parse(fs.readFileSync(path.join(sandbox.env.XDG_CONFIG_HOME!, 'xdog', 'credentials.json'), 'utf8'));
    expect(credentials['wechat:wx']).toEqual({ type: 'api_key', key: standin.token });

    gateway = await startGateway(sandbox);
    client = await connect(sandbox);
    const status = async () => ((await client!.callService('channels.status', { id: 'wx' })) as ChannelStatus[])[0]!;

    standin.inject('u1', 'progress echo quiet:secret-output');
    standin.inject('intruder', 'run touch pwned');
    await until(() => standin!.sent.length === 2 && standin!.typing.at(-1)?.status === 2, 'two replies and typing off');
    expect(standin.sent).toEqual([
      { to: 'u1', contextToken: 'ctx-u1', text: 'working on it' },
      { to: 'u1', contextToken: 'ctx-u1', text: 'finished' },
    ]);
    expect(standin.typing[0]).toEqual({ user: 'u1', status: 1 });
    expect(standin.typing.filter((item) => item.status === 2)).toHaveLength(1);
    expect((await status()).counters).toMatchObject({ accepted: 1, refused: 1 });

    // 60 messages: the first holds the worker, the inbox fills to 50, and the API keeps the rest.
    standin.inject('u2', 'slow 4');
    await until(async () => (await status()).current?.sender === 'u2', 'the slow message to be answered');
    const texts = Array.from({ length: 59 }, (_, index) => `note ${index}`);
    for (const text of texts) standin.inject(index(text) % 2 ? 'u1' : 'u2', text);
    await until(async () => (await status()).inbox.size === 50, 'the inbox to fill');
    expect(standin.pending()).toBeGreaterThan(0);
    const pollsWhileFull = standin.polls;
    expect((await status()).inbox.size).toBe(50);
    expect(standin.polls).toBe(pollsWhileFull);

    await until(() => standin!.sent.length === 2 + 1 + 59, 'every message answered', 60_000);
    expect((await status()).inbox.highWater).toBe(50);
    expect(standin.sent.slice(3).map((sent) => sent.text)).toEqual(texts.map((text) => `echo: ${text}`));
    expect(standin.sent.slice(3).map((sent) => sent.to)).toEqual(texts.map((text) => (index(text) % 2 ? 'u1' : 'u2')));
    expect(standin.sent.some((sent) => sent.to === 'intruder')).toBe(false);
  });
});

describe('channels: WeChat across a gateway restart', { timeout: 180_000 }, () => {
  let standin: ILinkStandin | undefined;
  let gateway: GatewayProcess | undefined;
  let client: GatewayConnection | undefined;
  afterEach(async () => {
    await client?.close();
    await gateway?.stop();
    await standin?.close();
    client = gateway = standin = undefined;
  });

  it('goes on from the saved poll cursor: nothing fetched again, skipped or sent twice (scenario 6)', async () => {
    standin = await startILinkStandin();
    const sandbox = clawSandbox(['  channels:', '    wx:', '      type: wechat', '      group: main', '      allow_from: [u1]', '      settings:', `        base_url: "${standin.url}"`, '        token_env: XDOG_TEST_WECHAT_TOKEN', ''].join('\n'));
    sandbox.env.XDOG_TEST_WECHAT_TOKEN = standin.token;
    const start = async () => {
      gateway = await startGateway(sandbox);
      client = await connect(sandbox);
    };
    const status = async () => ((await client!.callService('channels.status', { id: 'wx' })) as ChannelStatus[])[0]!;
    await start();

    for (const text of ['hello 0', 'hello 1', 'hello 2']) standin.inject('u1', text);
    await until(() => standin!.sent.length === 3, 'the first three replies');
    // A slow one holds the worker while three more wait in the inbox: the restart drops those (the inbox is not durable).
    standin.inject('u1', 'slow 30');
    await until(async () => (await status()).current !== null, 'the slow message to be answered');
    for (const text of ['waiting 0', 'waiting 1', 'waiting 2']) standin.inject('u1', text);
    await until(async () => (await status()).inbox.size === 3, 'three waiting messages');
    await until(() => standin!.cursors.at(-1) === '7', 'the cursor past the seven taken messages');

    expect(await gateway!.stop()).toBe(0);
    await client!.close();
    expect(gateway!.log()).toContain('3 waiting message(s) dropped');
    // Sent while the gateway is down: the API keeps them, and the restarted gateway must not skip them.
    standin.inject('u1', 'while down');
    const pollsBefore = standin.cursors.length;
    await start();
    await until(() => standin!.sent.length === 4, 'the reply to the message sent while down');
    expect(standin.cursors[pollsBefore]).toBe('7');
    expect(standin.sent.map((sent) => sent.text)).toEqual(['echo: hello 0', 'echo: hello 1', 'echo: hello 2', 'echo: while down']);
    await until(async () => (await status()).current === null, 'the channel to be idle');
    expect(standin.sent).toHaveLength(4);
    expect(sandbox.requests().filter((request) => JSON.stringify(request.messages.at(-1)).includes('waiting 0'))).toEqual([]);
  });
});

function index(text: string): number {
  return Number(text.split(' ')[1]);
}
