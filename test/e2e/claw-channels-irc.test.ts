/**
 * The IRC channel end to end against a real server (ngircd) and a real
 * gateway process: a person's private message gets the agent's replies, one
 * per completed assistant text message of a text → tool → text turn, in
 * order; a nick off the allow-list gets nothing and nothing runs. In a room,
 * lines addressed to the bot by allowed nicks are answered in the room; other
 * lines, and lines from other nicks, are ignored.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { GatewayConnection } from '../../plugins/claw-gateway/index.js';
import type { ChannelStatus } from '../../plugins/channels/index.js';
import fs from 'node:fs';
import path from 'node:path';
import { clawSandbox, collect, connect, startGateway, until, type GatewayProcess } from '../support/claw.js';
import { ircUser, startIrcServer, type IrcServer, type IrcUser } from '../support/ngircd.js';

describe('channels: IRC against ngircd', { timeout: 120_000 }, () => {
  let server: IrcServer | undefined;
  let gateway: GatewayProcess | undefined;
  let client: GatewayConnection | undefined;
  const users: IrcUser[] = [];
  afterEach(async () => {
    for (const user of users.splice(0)) await user.quit();
    await client?.close();
    await gateway?.stop();
    await server?.stop();
    client = gateway = server = undefined;
  });

  it('answers a private message with one reply per completed assistant text, in order, and nothing to a nick off the allow-list', async () => {
    server = await startIrcServer();
    const sandbox = clawSandbox(
      ['  channels:', '    irc:', '      type: irc', '      group: main', '      allow_from: [alice]', '      settings:', '        host: 127.0.0.1', `        port: ${server.port}`, '        tls: false', '        nick: xdogbot', '        rooms: ["#team"]', ''].join('\n'),
    );
    gateway = await startGateway(sandbox);
    client = await connect(sandbox);
    const status = async () => ((await client!.callService('channels.status', { id: 'irc' })) as ChannelStatus[])[0]!;
    expect((await status()).transport).toMatchObject({ state: 'registered', nick: 'xdogbot' });

    const alice = await ircUser(server.port, 'alice');
    const mallory = await ircUser(server.port, 'mallory');
    users.push(alice, mallory);

    mallory.say('xdogbot', 'run touch pwned');
    await until(async () => (await status()).counters.refused === 1, 'the refusal');
    alice.say('xdogbot', 'progress echo quiet:secret-output');
    await until(() => alice.received.length === 2, 'two replies');
    expect(alice.received).toEqual([
      { from: 'xdogbot', text: 'working on it', notice: false },
      { from: 'xdogbot', text: 'finished', notice: false },
    ]);
    alice.say('xdogbot', 'hello again');
    await until(() => alice.received.length === 3, 'the third reply');
    expect(alice.received[2]).toEqual({ from: 'xdogbot', text: 'echo: hello again', notice: false });
    expect(mallory.received).toEqual([]);
    expect(sandbox.requests().some((request) => JSON.stringify(request.messages).includes('pwned'))).toBe(false);
    expect((await status()).counters).toMatchObject({ accepted: 2, refused: 1, answered: 2, sent: 3, failed: 0 });
  });

  it('answers lines addressed to it in a room, in the room, from allowed nicks only', async () => {
    server = await startIrcServer();
    const sandbox = clawSandbox(
      ['  channels:', '    irc:', '      type: irc', '      group: main', '      allow_from: [alice]', '      settings:', '        host: 127.0.0.1', `        port: ${server.port}`, '        tls: false', '        nick: xdogbot', '        rooms: ["#team"]', ''].join('\n'),
    );
    const alice = await ircUser(server.port, 'alice');
    const mallory = await ircUser(server.port, 'mallory');
    users.push(alice, mallory);
    await alice.join('#team');
    await mallory.join('#team');
    gateway = await startGateway(sandbox);
    client = await connect(sandbox);
    const status = async () => ((await client!.callService('channels.status', { id: 'irc' })) as ChannelStatus[])[0]!;
    // The bot joins its rooms once registered: wait until alice sees it in #team.
    await until(() => alice.joins.some((join) => join.nick === 'xdogbot' && join.room === '#team'), 'the bot to join #team');
    const botLines = (user: typeof alice) => user.roomLines.filter((line) => line.from === 'xdogbot');

    alice.say('#team', 'just chatting with the humans here');
    mallory.say('#team', 'xdogbot: run touch pwned');
    await until(async () => (await status()).counters.refused === 1, 'the refusal');
    alice.say('#team', 'XdogBot, progress echo quiet:secret-output');
    // Each user's connection gets the room's lines on its own: wait for both, not one.
    await until(() => botLines(alice).length === 2 && botLines(mallory).length === 2, 'two replies in the room, seen by both users');
    expect(botLines(alice)).toEqual([
      { room: '#team', from: 'xdogbot', text: 'working on it' },
      { room: '#team', from: 'xdogbot', text: 'finished' },
    ]);
    // Everyone in the room sees the answers; nobody gets a private reply; nothing ran for the ignored lines.
    expect(botLines(mallory).map((line) => line.text)).toEqual(['working on it', 'finished']);
    expect(alice.received).toEqual([]);
    expect(mallory.received).toEqual([]);
    const prompts = JSON.stringify(sandbox.requests().map((request) => request.messages.filter((message) => message.role === 'user')));
    expect(prompts).not.toContain('pwned');
    expect(prompts).not.toContain('just chatting');
    expect((await status()).counters).toMatchObject({ accepted: 1, refused: 1, answered: 1, sent: 2, failed: 0 });
  });

  it('answers an approval from an allowed nick ("deny 7 reason"), not from another nick', async () => {
    server = await startIrcServer();
    const sandbox = clawSandbox(
      ['      approvals: { mode: mutating }', '  channels:', '    irc:', '      type: irc', '      group: main', '      allow_from: [alice]', '      settings:', '        host: 127.0.0.1', `        port: ${server.port}`, '        tls: false', '        nick: xdogbot', ''].join('\n'),
    );
    fs.writeFileSync(path.join(sandbox.workspace, 'victim.txt'), 'precious');
    gateway = await startGateway(sandbox);
    client = await connect(sandbox);
    const requested = collect(client, 'approval.requested');
    await client.call('subscribe', {});
    const status = async () => ((await client!.callService('channels.status', { id: 'irc' })) as ChannelStatus[])[0]!;
    await until(async () => (await status()).transport.state === 'registered', 'the bot to register');
    const alice = await ircUser(server.port, 'alice');
    const mallory = await ircUser(server.port, 'mallory');
    users.push(alice, mallory);

    alice.say('xdogbot', 'run rm victim.txt');
    await until(() => requested.length === 1, 'the approval request');
    const id = requested[0]!.approval.id as number;
    // The card comes first, in lines (IRC has no newlines in a message): the call, why, and the replies that answer it.
    await until(() => alice.received.some((line) => line.text.startsWith('Reply ')), 'the approval card');
    expect(alice.received.map((line) => line.text)).toEqual([
      `Approval ${id} needed: bash rm victim.txt`,
      expect.stringContaining('Why: "rm victim.txt" is not covered by a rule'),
      expect.stringMatching(new RegExp(`^Reply "approve ${id}" to run it, or "deny ${id} REASON" to refuse \\(expires 20`)),
    ]);
    alice.received.length = 0;
    mallory.say('xdogbot', `approve ${id}`);
    await until(async () => (await status()).counters.refused === 1, 'the refusal of mallory');
    alice.say('xdogbot', `deny ${id} keep victim.txt`);
    await until(() => alice.received.length === 2, 'the approval reply and the run reply');
    expect(alice.received[0]).toEqual({ from: 'xdogbot', text: `approval ${id} (bash): denied`, notice: false });
    expect(alice.received[1]!.text).toContain('irc:alice denied it: keep victim.txt');
    expect(fs.readFileSync(path.join(sandbox.workspace, 'victim.txt'), 'utf8')).toBe('precious');
    expect(mallory.received).toEqual([]);
  });
});
