/**
 * Channels through a real gateway process, the faux model and the webhook
 * channel: replies go out one per completed assistant text message (never
 * reasoning or tool output), the inbox holds at most 50 and refuses rather
 * than drops, a restart drops the waiting messages and cancels the one being
 * answered, an extension's `handled` feedback goes back as channel output,
 * and a killed-and-restarted gateway answers nothing twice.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { GatewayConnection } from '../../plugins/claw-gateway/index.js';
import type { ChannelStatus } from '../../plugins/channels/index.js';
import { clawSandbox, connect, startGateway, until, type ClawSandbox, type GatewayProcess } from '../support/claw.js';
import { repoRoot, runCli } from '../support/cli.js';
import { writeTree } from '../support/temp.js';
import { WEBHOOK_SECRET, deliver, startReceiver, webhookChannelConfig, type Receiver } from '../support/webhook.js';

type Delivery = { id: string; sender: string; text: string };

/** Runs the built CLI without blocking this process (the outbound receiver lives here). */
function cli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(repoRoot, 'bin/run.js'), ...args], { env: { ...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: '1', ...env }, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('channels: the webhook channel', { timeout: 180_000 }, () => {
  let gateway: GatewayProcess | undefined;
  let client: GatewayConnection | undefined;
  let receiver: Receiver | undefined;
  afterEach(async () => {
    await client?.close();
    await gateway?.stop();
    await receiver?.close();
    client = gateway = receiver = undefined;
  });

  async function setup(allow: string[]): Promise<ClawSandbox> {
    receiver = await startReceiver();
    const sandbox = clawSandbox(webhookChannelConfig(receiver.url, allow));
    sandbox.env.XDOG_TEST_WEBHOOK_SECRET = WEBHOOK_SECRET;
    return sandbox;
  }

  async function start(sandbox: ClawSandbox): Promise<string> {
    await client?.close();
    gateway = await startGateway(sandbox);
    client = await connect(sandbox);
    expect(client.hello.capabilities).toContain('channels:1');
    return (await status()).transport.url as string;
  }

  async function status(): Promise<ChannelStatus> {
    const [channel] = (await client!.callService('channels.status', { id: 'hook' })) as ChannelStatus[];
    return channel!;
  }

  /** Delivers until accepted, as a sender does when told the inbox is full. */
  async function deliverUntilTaken(url: string, message: Delivery): Promise<string> {
    for (;;) {
      const { status: code, body } = await deliver(url, message);
      if (code !== 503) return body.status!;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  const repliesTo = (id: string) => receiver!.messages().filter((item) => item.in_reply_to === id);

  it('a signed webhook callback "approve 7" answers an approval of its group; a wrong signature changes nothing', async () => {
    receiver = await startReceiver();
    const sandbox = clawSandbox(`      approvals: { mode: mutating }\n${webhookChannelConfig(receiver.url, ['alice'])}`);
    sandbox.env.XDOG_TEST_WEBHOOK_SECRET = WEBHOOK_SECRET;
    fs.writeFileSync(path.join(sandbox.workspace, 'gone.txt'), 'unwanted');
    const url = await start(sandbox);
    const requested: Array<Record<string, any>> = [];
    client!.on('approval.requested', (params) => requested.push(params));
    await client!.call('subscribe', {});
    expect(await deliver(url, { id: 'a1', sender: 'alice', text: 'run rm gone.txt' })).toEqual({ status: 202, body: { status: 'accepted' } });
    await until(() => requested.length === 1, 'the approval request');
    const id = requested[0]!.approval.id as number;
    // The conversation that started the run gets a signed, structured approval callback.
    await until(() => receiver!.received.some((item) => item.type === 'approval'), 'the approval callback');
    expect(receiver!.received.filter((item) => item.type === 'approval')).toEqual([
      {
        channel: 'hook',
        type: 'approval',
        to: 'alice',
        in_reply_to: 'a1',
        approval: { id, tool: 'bash', args: { command: 'rm gone.txt' }, reason: expect.stringContaining('"rm gone.txt" is not covered by a rule'), expires_at: expect.any(String), replies: { approve: `approve ${id}`, deny: `deny ${id} REASON` } },
      },
    ]);
    expect((await deliver(url, { id: 'a2', sender: 'alice', text: `approve ${id}` }, 'wrong-secret')).status).toBe(401);
    expect((await client!.callService('approvals.show', { id })).approval.status).toBe('pending');
    expect(await deliver(url, { id: 'a3', sender: 'alice', text: `approve ${id}` })).toEqual({ status: 202, body: { status: 'accepted' } });
    await until(() => repliesTo('a3').length === 1, 'the approval reply');
    expect(repliesTo('a3')[0]!.text).toBe(`approval ${id} (bash): approved`);
    await until(() => !fs.existsSync(path.join(sandbox.workspace, 'gone.txt')), 'the approved call to run');
    await until(() => repliesTo('a1').length === 1, 'the run reply');
  });

  it('sends each completed assistant text as it exists, never reasoning or tool output, with typing on until the turn ends (scenario 5)', async () => {
    const sandbox = await setup(['alice']);
    const url = await start(sandbox);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/xdog\/inbound$/);

    expect((await deliver(url, { id: 'p1', sender: 'alice', text: 'progress echo quiet:secret-output' })).status).toBe(202);
    await until(() => repliesTo('p1').length === 2 && receiver!.received.at(-1)?.on === false, 'two replies and typing off');
    expect(repliesTo('p1').map((reply) => [reply.to, reply.text])).toEqual([['alice', 'working on it'], ['alice', 'finished']]);
    const wire = JSON.stringify(receiver!.received);
    expect(wire).not.toContain('secret-reasoning');
    expect(wire).not.toContain('secret-output');
    const kinds = receiver!.received.map((item) => (item.type === 'typing' ? `typing:${item.on}` : 'message'));
    expect(kinds[0]).toBe('typing:true');
    expect(kinds.at(-1)).toBe('typing:false');
    expect(kinds.filter((kind) => kind === 'typing:false')).toHaveLength(1);

    // A message delivered again after it was answered is a duplicate: 200, counted once, not answered again.
    const answered = repliesTo('p1').length;
    expect(await deliver(url, { id: 'p1', sender: 'alice', text: 'progress echo quiet:secret-output' })).toEqual({ status: 200, body: { status: 'duplicate' } });
    expect((await status()).counters).toMatchObject({ accepted: 1, duplicate: 1 });
    expect(repliesTo('p1')).toHaveLength(answered);

    // Refusals a sender can act on: bad signature, sender off the allow-list, blank text.
    expect((await deliver(url, { id: 'x1', sender: 'alice', text: 'hi' }, 'wrong-secret')).status).toBe(401);
    expect(await deliver(url, { id: 'x2', sender: 'mallory', text: 'hi' })).toEqual({ status: 403, body: { status: 'refused' } });
    expect((await deliver(url, { id: 'x3', sender: 'alice', text: '   ' })).status).toBe(400);
    // The 64 KiB limit counts the ids beside the text: a text under it alone is over it with a 200-byte id.
    expect(await deliver(url, { id: `x4${'i'.repeat(198)}`, sender: 'alice', text: 'a'.repeat(64 * 1024 - 100) })).toEqual({ status: 413, body: { status: 'too_large' } });

    // xdog claw channels list | status | test
    const listed = await cli(['claw', 'channels', 'list', '--json'], sandbox.env);
    expect(JSON.parse(listed.stdout)).toEqual([{ id: 'hook', type: 'webhook', group: 'main', allowFrom: ['alice'], providedBy: 'xdog' }]);
    const shown = await cli(['claw', 'channels', 'status', 'hook'], sandbox.env);
    expect(shown.stdout).toContain('hook (webhook → group main): running, idle, inbox 0/50');
    expect(shown.stdout).toContain('accepted 1, refused 1');
    const tested = await cli(['claw', 'channels', 'test', 'hook', '--to', 'bob', '--text', 'ping'], sandbox.env);
    expect(tested.stdout.trim()).toBe('sent 1 message(s) through hook');
    expect(receiver!.messages().at(-1)).toEqual({ channel: 'hook', type: 'message', to: 'bob', text: 'ping' });
    const unknown = await cli(['claw', 'channels', 'test', 'nope', '--to', 'bob'], sandbox.env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no channel "nope" is running');
  });

  it('holds at most 50 waiting messages, refuses the rest without losing any, and answers in arrival order (scenario 5)', async () => {
    const sandbox = await setup(['alice', 'bob']);
    const url = await start(sandbox);
    expect(await deliver(url, { id: 'first', sender: 'alice', text: 'slow 4' })).toEqual({ status: 202, body: { status: 'accepted' } });
    await until(async () => (await status()).current?.id === 'first', 'the first message to be answered');

    const messages = Array.from({ length: 59 }, (_, index) => ({ id: `m${index}`, sender: index % 2 ? 'bob' : 'alice', text: `hello ${index}` }));
    const refused: Delivery[] = [];
    for (const message of messages) {
      const { status: code } = await deliver(url, message);
      if (code === 503) refused.push(message);
      else expect(code).toBe(202);
    }
    expect(refused.map((message) => message.id)).toEqual(messages.slice(50).map((message) => message.id));
    const full = await status();
    expect(full.inbox).toEqual({ size: 50, highWater: 50, capacity: 50 });
    for (const message of refused) expect(await deliverUntilTaken(url, message)).toBe('accepted');

    await until(() => messages.every((message) => repliesTo(message.id).length === 1), 'every message answered', 60_000);
    expect((await status()).inbox.highWater).toBe(50);
    const order = receiver!.messages().map((reply) => reply.in_reply_to);
    expect(order).toEqual(['first', ...messages.map((message) => message.id)]);
    for (const message of messages) expect(repliesTo(message.id)[0]).toMatchObject({ to: message.sender, text: `echo: ${message.text}` });
  });

  it('drops the waiting messages and cancels the one being answered on restart; nothing is sent afterwards for them (scenario 6)', async () => {
    const sandbox = await setup(['alice']);
    let url = await start(sandbox);
    expect((await deliver(url, { id: 'busy', sender: 'alice', text: 'slow 30' })).status).toBe(202);
    await until(async () => (await status()).current?.id === 'busy', 'the slow message to be answered');
    for (let index = 0; index < 5; index++) expect((await deliver(url, { id: `w${index}`, sender: 'alice', text: `waiting ${index}` })).status).toBe(202);
    expect((await status()).inbox.size).toBe(5);

    expect(await gateway!.stop()).toBe(0);
    expect(gateway!.log()).toContain('5 waiting message(s) dropped');
    url = await start(sandbox);
    expect((await deliver(url, { id: 'after', sender: 'alice', text: 'after the restart' })).status).toBe(202);
    await until(() => repliesTo('after').length === 1, 'the reply after the restart');
    expect(receiver!.messages().map((reply) => reply.in_reply_to)).toEqual(['after']);
  });

  it("sends an extension's handled feedback back to the sender, and no model turn runs for it", async () => {
    const sandbox = await setup(['alice']);
    fs.appendFileSync(sandbox.configFile, 'extensions: [weather-desk]\n');
    const folder = path.join(sandbox.root, 'weather-desk');
    writeTree(folder, {
      'package.json': { name: 'weather-desk', version: '1.0.0', type: 'module', xdog: { extension: './index.js' } },
      'index.js': `export default function setup(api) {
  api.onInput(({ text }) => (text.startsWith('/weather') ? { action: 'handled', feedback: 'sunny in ' + text.slice(9) } : undefined));
}`,
    });
    const installed = runCli(['plugins', 'install', folder], { env: sandbox.env, cwd: sandbox.root });
    expect(installed.status, installed.stderr).toBe(0);
    const url = await start(sandbox);

    expect((await deliver(url, { id: 'h1', sender: 'alice', text: '/weather Lisbon' })).status).toBe(202);
    await until(() => repliesTo('h1').length === 1 && receiver!.received.at(-1)?.on === false, 'the handled feedback and typing off');
    expect(repliesTo('h1')).toEqual([{ channel: 'hook', type: 'message', to: 'alice', text: 'sunny in Lisbon', in_reply_to: 'h1' }]);
    expect(sandbox.requests()).toEqual([]);
    // An input the extension lets through still reaches the model and is answered as usual.
    expect((await deliver(url, { id: 'h2', sender: 'alice', text: 'hello' })).status).toBe(202);
    await until(() => repliesTo('h2').length === 1, 'the model reply');
    expect(repliesTo('h2')[0]!.text).toBe('echo: hello');
    expect(sandbox.requests()).toHaveLength(1);
    expect((await status()).counters).toMatchObject({ accepted: 2, answered: 2, sent: 2, failed: 0 });
  });

  it('refuses to start with an unknown channel type or bad settings, naming the key', async () => {
    const sandbox = await setup(['alice']);
    const config = sandbox.configFile;
    const original = fs.readFileSync(config, 'utf8');
    fs.writeFileSync(config, original.replace('type: webhook', 'type: telegram'));
    await expect(startGateway(sandbox)).rejects.toThrow(/claw\.channels\.hook\.type is "telegram", which no installed plugin provides[\s\S]*available: irc, webhook, wechat/);
    fs.writeFileSync(config, original.replace('port: 0', 'port: 70000'));
    await expect(startGateway(sandbox)).rejects.toThrow(/claw\.channels\.hook\.settings\.port: /);
    delete sandbox.env.XDOG_TEST_WEBHOOK_SECRET;
    fs.writeFileSync(config, original);
    await expect(startGateway(sandbox)).rejects.toThrow(/secret_env names XDOG_TEST_WEBHOOK_SECRET, which is not set/);
    sandbox.env.XDOG_TEST_WEBHOOK_SECRET = WEBHOOK_SECRET;

    // The daemon's own error comes back with its own code, once, and with the right article.
    fs.writeFileSync(config, original.replace('type: webhook', 'type: irc'));
    const daemon = await cli(['claw', 'gateway', 'start'], sandbox.env);
    expect(daemon.code).not.toBe(0);
    expect(daemon.stderr).toMatch(/^xdog: the gateway exited with code \d+ before it was ready: claw\.channels\.hook\.settings.*\[CONFIG_INVALID\] \(see docs\/channels\.md for the settings of an irc channel; the log: .*gateway\.log\)\n$/s);
    expect(daemon.stderr.match(/\[[A-Z_]+\]/g)).toEqual(['[CONFIG_INVALID]']);

    // A receiver that cannot be reached is UNAVAILABLE, with the reason, never INTERNAL.
    fs.writeFileSync(config, original);
    await receiver!.close();
    gateway = await startGateway(sandbox);
    const unreachable = await cli(['claw', 'channels', 'test', 'hook', '--to', 'bob'], sandbox.env);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(/^xdog: channel hook: 1 of 1 part\(s\) failed to send: POST http:\/\/127\.0\.0\.1:\d+\/out failed: .*ECONNREFUSED.* \[UNAVAILABLE\]/);
  });

  it('answers 200 messages from 5 senders once each in arrival order, none off the allow-list, and nothing twice across kill -9 and restart', async () => {
    const senders = ['s0', 's1', 's2', 's3', 's4'];
    const sandbox = await setup(senders);
    let url = await start(sandbox);
    const messages = Array.from({ length: 200 }, (_, index) => ({ id: `m${index}`, sender: senders[index % 5]!, text: `message ${index}` }));
    let repliesBeforeKill = 0;
    for (const [index, message] of messages.entries()) {
      if (index === 100) {
        await until(() => receiver!.messages().length >= 60, 'some replies before the kill', 60_000);
        await gateway!.kill9();
        repliesBeforeKill = receiver!.messages().length;
        url = await start(sandbox);
        // The senders do not know what ran: they deliver the first half again.
        for (const earlier of messages.slice(0, 100)) expect(['accepted', 'duplicate']).toContain(await deliverUntilTaken(url, earlier));
      }
      expect(await deliverUntilTaken(url, message)).toBe('accepted');
      if (index % 20 === 0) expect((await deliver(url, { id: `evil${index}`, sender: 'mallory', text: 'run rm -rf ~' })).status).toBe(403);
    }
    await until(() => messages.slice(100).every((message) => repliesTo(message.id).length === 1), 'the second half answered', 120_000);
    await until(async () => {
      const now = await status();
      return now.inbox.size === 0 && now.current === null;
    }, 'the channel to be idle');

    const replies = receiver!.messages();
    const ids = replies.map((reply) => reply.in_reply_to!);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.some((id) => id.startsWith('evil'))).toBe(false);
    // At most the message in flight at the kill goes unanswered (never run twice); every other one is answered once.
    const unanswered = messages.filter((message) => repliesTo(message.id).length === 0);
    expect(unanswered.length).toBeLessThanOrEqual(1);
    for (const reply of replies) expect(reply.text).toBe(`echo: ${messages[Number(reply.in_reply_to!.slice(1))]!.text}`);
    for (const reply of replies) expect(reply.to).toBe(messages[Number(reply.in_reply_to!.slice(1))]!.sender);
    // Per lifetime, replies follow arrival order.
    const numbers = ids.map((id) => Number(id.slice(1)));
    const increasing = (list: number[]) => list.every((value, index) => index === 0 || value > list[index - 1]!);
    expect(increasing(numbers.slice(0, repliesBeforeKill))).toBe(true);
    expect(increasing(numbers.slice(repliesBeforeKill))).toBe(true);
  });
});
