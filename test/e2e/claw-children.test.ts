/**
 * Durable children through a real gateway process with the faux model:
 * two read-only children grep the workspace and their results are recorded;
 * navigation is refused while a child runs; a kill -9 mid-child leaves it
 * "interrupted" after the restart, and it is never run again.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { GatewayConnection } from '../../plugins/claw-gateway/index.js';
import { clawSandbox, connect, startGateway, type GatewayProcess } from '../support/claw.js';
import { runCli } from '../support/cli.js';

describe('claw children', { timeout: 300_000 }, () => {
  let gateway: GatewayProcess | undefined;
  let client: GatewayConnection | undefined;
  afterEach(async () => {
    await client?.close();
    await gateway?.stop();
    client = gateway = undefined;
  });

  it('runs two read-only children that grep, refuses navigation while one runs, and marks a killed one interrupted, never re-run', async () => {
    const sandbox = clawSandbox();
    fs.writeFileSync(sandbox.configFile, fs.readFileSync(sandbox.configFile, 'utf8').replace('enabled_tools: [bash, read]', 'enabled_tools: [bash, read, grep]'));
    fs.writeFileSync(path.join(sandbox.workspace, 'notes.txt'), 'needle in here\n');
    gateway = await startGateway(sandbox);
    client = await connect(sandbox);

    const grep = (pattern: string) => `callj grep {"pattern":"${pattern}","path":"."}`;
    const first = await client.callService('agents.start', { task: grep('needle') });
    const second = await client.callService('agents.start', { task: grep('absent') });
    expect(first).toMatchObject({ status: 'running', access: 'read-only' });
    const done = await client.callService('agents.wait', { ids: [first.id, second.id] });
    expect(done.map((child: any) => child.status)).toEqual(['completed', 'completed']);
    expect(done[0].result).toContain('needle in here');
    expect(done[1].result).not.toContain('needle');
    const listed = await client.callService('agents.list', {});
    expect(listed.map((child: any) => child.id)).toEqual([first.id, second.id]);
    // The faux log shows the children's requests, apart from any parent's: each starts from its own task.
    const childRequests = sandbox.requests().filter((request) => request.messages.some((message) => message.role === 'user' && JSON.stringify(message.content).includes('callj grep')));
    expect(childRequests).toHaveLength(4);

    // The CLI's --label and --instructions specialize a child: the label is in its record, the instructions in its system prompt.
    const specializedStart = runCli(['claw', 'agents', 'start', '--label', 'Reviewer', '--instructions', 'Inspect only; cite file:line', '--json', '--', '--not-a-flag review'], { env: sandbox.env, cwd: sandbox.root });
    expect(specializedStart.status, specializedStart.stderr).toBe(0);
    const labelled = JSON.parse(specializedStart.stdout);
    expect(labelled).toMatchObject({ label: 'Reviewer', task: '--not-a-flag review' });
    await client.callService('agents.wait', { ids: [labelled.id] });
    const specialized = sandbox.requests().find((request) => request.messages.some((message) => JSON.stringify(message.content).includes('--not-a-flag review'))) as { systemPrompt?: string } | undefined;
    expect(specialized?.systemPrompt).toContain('Inspect only; cite file:line');

    // A long child (it inherits the group's bash) blocks navigation while it runs.
    const claw = (...args: string[]) => runCli(['claw', ...args], { env: sandbox.env, cwd: sandbox.root });
    expect(claw('send', 'hello').status).toBe(0);
    const slow = await client.callService('agents.start', { task: 'slow 60', access: 'inherit' });
    await expect(client.call('session.new', { expectedSessionId: null })).rejects.toThrow(/1 child agent is running \(.*\); changing the active session waits until it ends/);
    // Tightening is always allowed (it reaches the running child at its next call); loosening waits; compaction does not touch the child.
    expect(claw('readonly', 'on')).toMatchObject({ status: 0 });
    const planned = claw('plan', 'start', 'look', 'around');
    expect(planned.status, planned.stderr).toBe(0);
    const compacted = claw('compact');
    expect(compacted.status, compacted.stderr).toBe(0);
    const loosen = claw('readonly', 'off');
    expect(loosen.status).not.toBe(0);
    expect(loosen.stderr).toMatch(/1 child agent is running .*; loosening the read-only scope, plan mode or extension policy waits until it ends, since it was started under the tighter one \[BUSY\]/);
    await gateway.kill9();
    gateway = await startGateway(sandbox);
    await client.close();
    client = await connect(sandbox);
    const after = await client.callService('agents.inspect', { id: slow.id });
    expect(after).toMatchObject({ status: 'interrupted' });
    expect(after.error).toMatch(/not run again/);
    const slowCalls = () => sandbox.requests().filter((request) => request.messages.some((message) => message.role === 'user' && JSON.stringify(message.content).includes('slow 60'))).length;
    const before = slowCalls();
    expect(before).toBe(1);
    // Nothing runs it again; navigation and loosening work once no child runs.
    expect(claw('readonly', 'off')).toMatchObject({ status: 0 });
    const { activeSessionId } = (await client.call('group.status', {})) as { activeSessionId: string };
    await client.call('session.new', { expectedSessionId: activeSessionId });
    expect(slowCalls()).toBe(before);

    // The CLI: start, wait, inspect; a raised cap is refused with one line.
    const cli = (...args: string[]) => claw('agents', ...args);
    const started = cli('start', '--calls', '4', '--tools', 'grep', '--json', grep('needle'));
    expect(started.status, started.stderr).toBe(0);
    const id = JSON.parse(started.stdout).id as string;
    const waited = cli('wait', id);
    expect(waited).toMatchObject({ status: 0 });
    expect(waited.stdout).toMatch(new RegExp(`^${id} completed read-only: .*\\n  result: .*needle in here`));
    expect(cli('inspect', slow.id).stdout).toMatch(/interrupted/);
    const raised = cli('start', '--calls', '30', 'anything');
    expect(raised.status).not.toBe(0);
    expect(raised.stderr).toMatch(/max_model_calls 30 is over the child limit of 16/);
    expect(cli('close', id)).toMatchObject({ status: 0, stdout: `closed ${id}\n` });
  });
  it('edits, removes and moves a running child\'s queued follow-ups from the CLI; the child sees the edit in the new order, never the removed one, and the images of its task and inputs (M41)', async () => {
    const sandbox = clawSandbox();
    gateway = await startGateway(sandbox);
    const claw = (...args: string[]) => runCli(['claw', 'agents', ...args], { env: sandbox.env, cwd: sandbox.root });
    // A small image goes inline; one over the 1 MiB upload chunk goes as a chunked upload first.
    const header = Buffer.from('89504e470d0a1a0a0000000d49484452000000100000001008060000001ff3ff61', 'hex');
    const small = Buffer.concat([header, crypto.randomBytes(2000)]);
    const big = Buffer.concat([header, crypto.randomBytes(3 * 1024 * 1024)]);
    fs.writeFileSync(path.join(sandbox.root, 'small.png'), small);
    fs.writeFileSync(path.join(sandbox.root, 'big.png'), big);
    // The child's bash call holds its turn until the test writes `release`, so its follow-ups wait in its queue.
    const started = claw('start', '--inherit', '--fresh', '--json', '--image', 'small.png', 'progress for i in $(seq 900); do [ -e release ] && break; sleep 0.1; done');
    expect(started.status, started.stderr).toBe(0);
    expect(JSON.parse(started.stdout)).toMatchObject({ taskImages: 1 });
    const id = JSON.parse(started.stdout).id as string;
    const inputs = ['first', 'second', 'third'].map((text) => {
      const sent = claw('follow-up', '--json', ...(text === 'third' ? ['--image', 'big.png'] : text === 'second' ? ['--image', 'small.png'] : []), id, text);
      expect(sent.status, sent.stderr).toBe(0);
      return JSON.parse(sent.stdout).id as number;
    });
    const notImage = claw('steer', '--image', 'nowhere.png', id, 'never sent');
    expect(notImage.status).not.toBe(0);
    expect(notImage.stderr).toContain('nowhere.png');
    const edited = claw('edit-input', id, String(inputs[0]), 'first,', 'edited');
    expect(edited.status, edited.stderr).toBe(0);
    expect(edited.stdout).toContain(`input #${inputs[0]} followUp accepted: first, edited`);
    // --return copies the input whole before removing it; a name already in the directory refuses first, removing nothing.
    const returned = path.join(sandbox.root, 'returned');
    fs.mkdirSync(returned);
    fs.writeFileSync(path.join(returned, `input-${inputs[0]}.txt`), 'in the way');
    const blocked = claw('remove-input', '--return', returned, id, String(inputs[0]));
    expect(blocked.status).not.toBe(0);
    expect(blocked.stderr).toContain(`input-${inputs[0]}.txt already exists; it was not overwritten`);
    const removed = claw('remove-input', '--return', returned, id, `#${inputs[1]}`);
    expect(removed.status, removed.stderr).toBe(0);
    expect(removed.stdout).toContain(`input #${inputs[1]} followUp removed (1 image): second`);
    expect(fs.readFileSync(path.join(returned, `input-${inputs[1]}.txt`), 'utf8')).toBe('second');
    expect(fs.readFileSync(path.join(returned, `input-${inputs[1]}-1.png`)).equals(small)).toBe(true);
    expect(fs.statSync(path.join(returned, `input-${inputs[1]}-1.png`)).mode & 0o777).toBe(0o600);
    const again = claw('edit-input', id, String(inputs[1]), 'back');
    expect(again.status).not.toBe(0);
    expect(again.stderr).toContain(`input #${inputs[1]} of child ${id} is removed; it can no longer be changed`);
    const bad = claw('remove-input', id, 'first');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('"first" is not an input number');
    // The third passes the first (the removed second no longer counts), once; the journal lists the new order.
    const moved = claw('move-input', id, String(inputs[2]), 'up');
    expect(moved.status, moved.stderr).toBe(0);
    expect(moved.stdout.indexOf(`input #${inputs[2]} followUp accepted (1 image): third`)).toBeLessThan(moved.stdout.indexOf(`input #${inputs[0]} followUp accepted: first, edited`));
    const first = claw('move-input', id, String(inputs[2]), 'up');
    expect(first.status).not.toBe(0);
    expect(first.stderr).toContain(`input #${inputs[2]} is already the first of child ${id}'s queued follow-ups`);
    expect(claw('move-input', id, String(inputs[2]), 'sideways').status).toBe(2);

    fs.writeFileSync(path.join(sandbox.workspace, 'release'), '');
    expect(claw('wait', id).status).toBe(0);
    const userTexts = sandbox.requests().flatMap((request) => request.messages.filter((message) => message.role === 'user').map((message) => JSON.stringify(message.content)));
    expect(userTexts.some((text) => text.includes('first, edited'))).toBe(true);
    expect(userTexts.some((text) => text.includes('third'))).toBe(true);
    expect(userTexts.some((text) => text.includes('second'))).toBe(false);
    expect(userTexts.findIndex((text) => text.includes('third'))).toBeLessThan(userTexts.findIndex((text) => text.includes('first, edited')));
    expect(userTexts.some((text) => text.includes('never sent'))).toBe(false);
    // Byte for byte: the task's image, and the follow-up's (uploaded in chunks).
    const imagesWith = (word: string) =>
      sandbox.requests().flatMap((request) => request.messages).filter((message) => message.role === 'user' && JSON.stringify(message.content).includes(word)).flatMap((message) => (Array.isArray(message.content) ? message.content : [])).filter((part) => part.type === 'image').map((part) => Buffer.from((part as { data: string }).data, 'base64'));
    expect(imagesWith('progress for i')[0]?.equals(small)).toBe(true);
    expect(imagesWith('third')[0]?.equals(big)).toBe(true);
    const inspected = JSON.parse(claw('inspect', '--json', id).stdout) as { inputs: Array<{ text: string; status: string; images: number }> };
    expect(inspected.inputs.map((input) => [input.text, input.status])).toEqual([['third', 'consumed'], ['second', 'removed'], ['first, edited', 'consumed']]);
    expect(inspected.inputs.map((input) => input.images)).toEqual([1, 1, 0]);
  });
  it('a child started from the CLI gets a copy of the active session\'s conversation; --fresh starts it from its task alone (M39)', async () => {
    const sandbox = clawSandbox();
    gateway = await startGateway(sandbox);
    const claw = (...args: string[]) => runCli(['claw', ...args], { env: sandbox.env, cwd: sandbox.root });
    expect(claw('send', 'the secret word is PELICAN').status).toBe(0);
    const childRequest = (task: string) => sandbox.requests().find((request) => request.messages.some((message) => message.role === 'user' && JSON.stringify(message.content).includes(task)));
    const seesParent = (task: string) => childRequest(task)!.messages.some((message) => JSON.stringify(message.content).includes('PELICAN'));

    for (const [flags, task] of [[[], 'inheriting child'], [['--fresh'], 'fresh child']] as const) {
      const started = claw('agents', 'start', ...flags, '--json', task);
      expect(started.status, started.stderr).toBe(0);
      const id = JSON.parse(started.stdout).id as string;
      expect(claw('agents', 'wait', id).status).toBe(0);
    }
    expect(seesParent('inheriting child')).toBe(true);
    expect(seesParent('fresh child')).toBe(false);
    // The task is the child's last message either way.
    expect(JSON.stringify(childRequest('fresh child')!.messages.at(-1)!.content)).toContain('fresh child');
  });
});
