/**
 * What a client watches never changes what runs or what is stored: events
 * over the frame limit reach every subscriber whole (in parts), a client
 * reading at full speed gets every delta of a run produced without yielding
 * (merged while it is behind), and only a client that stops reading is cut,
 * with a line in the gateway log. The built CLI and a real gateway.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readToken } from '../../plugins/claw-gateway/transport/index.js';
import { clawSandbox, connect, startGateway, startWorker, until, watch, type ClawSandbox, type GatewayProcess } from '../support/claw.js';
import { runCliAsync } from '../support/cli.js';

const running: GatewayProcess[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((gateway) => gateway.stop()));
});

const sha = (text: string): string => createHash('sha256').update(text).digest('hex');

function sandboxWithWrite(): ClawSandbox {
  const sandbox = clawSandbox();
  fs.writeFileSync(sandbox.configFile, fs.readFileSync(sandbox.configFile, 'utf8').replace('enabled_tools: [bash, read]', 'enabled_tools: [bash, read, write]'));
  return sandbox;
}

async function gatewayFor(sandbox: ClawSandbox): Promise<GatewayProcess> {
  const gateway = await startGateway(sandbox);
  running.push(gateway);
  return gateway;
}

/** What one client saw of a run: its joined deltas, its tool calls and its committed messages. */
interface Seen {
  text: string;
  thinking: string;
  toolArguments: string;
  toolCalls: Array<{ name: string; arguments: Record<string, unknown> }>;
  messages: Array<Record<string, any>>;
}

/** The agent events of `event` notifications a connection collected. */
const eventsOf = (notifications: Array<Record<string, any>>): Array<Record<string, any>> => notifications.map((params) => params.event);

function seenIn(events: Array<Record<string, any>>): Seen {
  const seen: Seen = { text: '', thinking: '', toolArguments: '', toolCalls: [], messages: [] };
  for (const event of events) {
    if (event.type === 'message_update') {
      const { delta } = event;
      if (delta.type === 'text_delta') seen.text += delta.delta;
      if (delta.type === 'thinking_delta') seen.thinking += delta.delta;
      if (delta.type === 'toolcall_delta') seen.toolArguments += delta.delta;
      if (delta.type === 'toolcall_end') seen.toolCalls.push(delta.toolCall);
    }
    if (event.type === 'message_end') seen.messages.push(event.message);
  }
  return seen;
}

/** `xdog claw send --json TEXT`: exit status, the events it printed and its run end. */
async function send(sandbox: ClawSandbox, text: string): Promise<{ status: number | null; stderr: string; seen: Seen; end: Record<string, any> | undefined }> {
  const result = await runCliAsync(['claw', 'send', '--json', text], { env: sandbox.env, cwd: sandbox.root });
  const lines = result.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, any>);
  return { status: result.status, stderr: result.stderr, seen: seenIn(lines), end: lines.find((line) => line.type === 'run_end') };
}

/** The stored messages of the group's active session, read through transcript.read. */
async function storedMessages(sandbox: ClawSandbox): Promise<Array<Record<string, any>>> {
  const client = await connect(sandbox, 'reader');
  try {
    const chunks: Buffer[] = [];
    let chunk = await client.call('transcript.read', { offset: 0 });
    chunks.push(Buffer.from(chunk.data, 'base64'));
    while (!chunk.done) {
      chunk = await client.call('transcript.read', { offset: chunk.nextOffset, untilEntryId: chunk.untilEntryId });
      chunks.push(Buffer.from(chunk.data, 'base64'));
    }
    const bytes = Buffer.concat(chunks);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(chunk.sha256);
    return bytes
      .toString('utf8')
      .split('\n')
      .filter(Boolean)
      .slice(1)
      .map((line) => JSON.parse(line))
      .filter((entry) => entry.kind === 'message')
      .map((entry) => entry.payload.message);
  } finally {
    await client.close();
  }
}

const textOf = (message: Record<string, any>): string =>
  (message.content as Array<Record<string, any>>)
    .filter((part) => part.type === 'text')
    .map((part) => part.text)
    .join('');

/** A subscriber that says hello, subscribes, and then never reads again. */
async function stalledSubscriber(sandbox: ClawSandbox, client: string): Promise<net.Socket> {
  const socket = net.createConnection(sandbox.locations.socket);
  let received = '';
  socket.setEncoding('utf8');
  const onData = (chunk: string): void => void (received += chunk);
  socket.on('data', onData);
  socket.on('error', () => {});
  socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'hello', params: { token: readToken(sandbox.locations.token), protocol: 1, client } })}\n`);
  socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'subscribe', params: {} })}\n`);
  await until(() => received.includes('"id":2'), 'the stalled subscriber to be subscribed');
  socket.off('data', onData);
  socket.pause();
  return socket;
}

describe('claw gateway: large events and fast readers', () => {
  it('streams a 9 MiB write call and a 9 MB reply whole to two subscribers, and stores both', async () => {
    const sandbox = sandboxWithWrite();
    const gateway = await gatewayFor(sandbox);
    const watcher = await connect(sandbox, 'watcher');
    const watched = await watch(watcher);

    const content = 9 * 1024 * 1024;
    const write = await send(sandbox, `bigwrite big.txt ${content}`);
    expect(write.stderr).toBe('');
    expect(write.status).toBe(0);
    expect(write.end).toMatchObject({ status: 'completed' });
    const file = fs.readFileSync(path.join(sandbox.workspace, 'big.txt'), 'utf8');
    expect(file.length).toBe(content);
    const stored = await storedMessages(sandbox);
    const call = stored.flatMap((message) => (message.role === 'assistant' ? message.content : [])).find((part: Record<string, any>) => part.type === 'toolCall');
    expect(sha(call.arguments.content)).toBe(sha(file));
    await until(() => watched.ends.length === 1, 'the watcher to see the write run end');
    for (const seen of [write.seen, seenIn(eventsOf(watched.events))]) {
      expect(seen.toolCalls).toHaveLength(1);
      expect(sha(seen.toolCalls[0]!.arguments.content as string)).toBe(sha(file));
      expect(sha(JSON.parse(seen.toolArguments).content)).toBe(sha(file));
      const committed = seen.messages.find((message) => message.role === 'assistant' && message.content.some((part: Record<string, any>) => part.type === 'toolCall'));
      expect(sha(committed!.content.find((part: Record<string, any>) => part.type === 'toolCall').arguments.content)).toBe(sha(file));
    }

    const length = 9_000_000;
    const reply = await send(sandbox, `bigtext ${length}`);
    expect(reply.status).toBe(0);
    expect(reply.end).toMatchObject({ status: 'completed' });
    const storedReply = textOf((await storedMessages(sandbox)).at(-1)!);
    expect(storedReply).toHaveLength(length);
    await until(() => watched.ends.length === 2, 'the watcher to see the reply run end');
    for (const seen of [reply.seen, seenIn(eventsOf(watched.events))]) {
      expect(sha(seen.text.slice(-length))).toBe(sha(storedReply));
      expect(sha(textOf(seen.messages.at(-1)!))).toBe(sha(storedReply));
    }
    // Still serving, after both runs.
    expect((await watcher.call('gateway.status', {})).pid).toBe(gateway.child.pid);
    await watcher.close();
  }, 180_000);

  it('relays a 9 MB reply whole to a subscriber on another worker', async () => {
    const sandbox = clawSandbox();
    const owner = await startWorker(sandbox, 'a');
    running.push(owner.process);
    const follower = await startWorker(sandbox, 'b');
    running.push(follower.process);
    const watched = await watch(follower.client);
    const length = 9_000_000;
    const reply = await send(owner.view, `bigtext ${length}`);
    expect(reply.status).toBe(0);
    const storedReply = textOf((await storedMessages(owner.view)).at(-1)!);
    await until(() => watched.ends.length === 1, 'the follower to see the run end', 60_000);
    const seen = seenIn(eventsOf(watched.events));
    expect(sha(seen.text)).toBe(sha(storedReply));
    expect(sha(textOf(seen.messages.at(-1)!))).toBe(sha(storedReply));
    await owner.client.close();
    await follower.client.close();
  }, 180_000);

  it('gives a client reading at full speed all of 300k deltas made without yielding, and run.end', async () => {
    const sandbox = clawSandbox();
    await gatewayFor(sandbox);
    const watcher = await connect(sandbox, 'watcher');
    const watched = await watch(watcher);
    const reply = await send(sandbox, 'long 300000');
    expect(reply.stderr).toBe('');
    expect(reply.status).toBe(0);
    expect(reply.end).toMatchObject({ status: 'completed' });
    const storedReply = textOf((await storedMessages(sandbox)).at(-1)!);
    expect(storedReply.split(' ')).toHaveLength(300_000);
    await until(() => watched.ends.length === 1, 'the watcher to see run.end');
    expect(sha(reply.seen.text)).toBe(sha(storedReply));
    expect(sha(seenIn(eventsOf(watched.events)).text)).toBe(sha(storedReply));
    // As text: claw send prints the whole reply.
    const shown = await runCliAsync(['claw', 'send', 'long 300000'], { env: sandbox.env, cwd: sandbox.root });
    expect(shown.status).toBe(0);
    expect(sha(shown.stdout.trimEnd())).toBe(sha(storedReply));
    await watcher.close();
  }, 180_000);

  it('gives fast readers all of 300k thinking deltas exactly', async () => {
    const sandbox = clawSandbox();
    await gatewayFor(sandbox);
    const watcher = await connect(sandbox, 'watcher');
    const watched = await watch(watcher);
    const reply = await send(sandbox, 'longthink 300000');
    expect(reply.status).toBe(0);
    const stored = (await storedMessages(sandbox)).at(-1)!;
    const thinking = stored.content.find((part: Record<string, any>) => part.type === 'thinking').thinking as string;
    expect(thinking.split(' ')).toHaveLength(300_000);
    await until(() => watched.ends.length === 1, 'the watcher to see run.end');
    expect(sha(reply.seen.thinking)).toBe(sha(thinking));
    expect(sha(seenIn(eventsOf(watched.events)).thinking)).toBe(sha(thinking));
    await watcher.close();
  }, 180_000);

  it('cuts a subscriber that stops reading, says so in the gateway log, and runs on for the others', async () => {
    const sandbox = clawSandbox();
    const gateway = await gatewayFor(sandbox);
    const stalled = await stalledSubscriber(sandbox, 'stalled-reader');
    const watcher = await connect(sandbox, 'watcher');
    const watched = await watch(watcher);
    for (const run of [1, 2]) {
      const reply = await send(sandbox, 'bigtext 9000000');
      expect(reply.status).toBe(0);
      await until(() => watched.ends.length === run, `the watcher to see run ${run} end`);
    }
    await until(() => /connection \d+ closed: the client stopped reading: \d+ bytes were waiting for it.*\(client "stalled-reader"\)/.test(gateway.log()), 'the cut in the gateway log');
    expect(gateway.log()).not.toMatch(/closed: .*\(client "watcher"\)/);
    const storedReply = textOf((await storedMessages(sandbox)).at(-1)!);
    expect(sha(textOf(seenIn(eventsOf(watched.events)).messages.at(-1)!))).toBe(sha(storedReply));
    stalled.destroy();
    await watcher.close();
  }, 180_000);
});
