/** Durable children on a real SQLite store: faux-model children that grep a workspace, with their records, inputs and usage in the store. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFauxStreamFn } from '../../../plugins/faux/index.js';
import { createBuiltinTools } from '../../../plugins/tools/index.js';
import { ChildRecordStore, DurableChildRuntime, createSdkChildHost, resolveChildSpec } from '../../../plugins/children/index.js';
import { tempDir } from '../../support/temp.js';
import { describeStores, type StoreKind } from '../../support/stores.js';
import { openTestStore, openTestStoreOn } from '../sessions/helpers.js';

/** A child greps for the word its task names, then answers with what grep found; "loop" children keep telling the time. */
async function setup(hold?: { entered(): void; released: Promise<void> }, kind: StoreKind = 'sqlite') {
  const workspace = tempDir();
  fs.writeFileSync(path.join(workspace, 'a.txt'), 'alpha marker one\n');
  fs.writeFileSync(path.join(workspace, 'b.txt'), 'beta marker two\n');
  const stream = createFauxStreamFn({
    responses: (request) => {
      const task = String(request.messages.find((message) => message.role === 'user')!.content);
      const lastTool = [...request.messages].reverse().find((message) => message.role === 'toolResult');
      if (task.startsWith('loop')) return { toolCalls: [{ name: 'current_time', arguments: {} }] };
      if (task === 'hold' && hold) {
        // The first call waits for the test; each later one answers the follow-up it was given.
        const users = request.messages.filter((message) => message.role === 'user');
        if (users.length > 1) return { text: `saw ${JSON.stringify(users.at(-1)!.content)}` };
        hold.entered();
        return hold.released.then(() => ({ text: 'held' }));
      }
      if (lastTool) return { text: `found: ${JSON.stringify(lastTool.content).includes('marker') ? task.split(' ')[1] : 'nothing'}` };
      return { toolCalls: [{ name: 'grep', arguments: { pattern: task.split(' ')[1]!, path: '.' } }] };
    },
  });
  const opened = kind === 'sqlite' ? await openTestStore() : await openTestStoreOn(kind);
  await opened.store.ensureGroup('main');
  const records = new ChildRecordStore({ store: opened.store, clock: opened.clock });
  const tools = createBuiltinTools({ cwd: workspace });
  const runtime = new DurableChildRuntime({ host: createSdkChildHost({ streamFn: stream, model: 'faux/test', parentTools: () => tools }), records, group: 'main' });
  return { ...opened, records, runtime, stream };
}

const spec = (task: string, config: Record<string, unknown> = {}) => resolveChildSpec({ action: 'spawn', task, config }, {});

describe('DurableChildRuntime', () => {
  it('runs two read-only children that grep, and records their results, transcripts and usage', async () => {
    const s = await setup();
    const started = [await s.runtime.spawn(spec('grep alpha')), await s.runtime.spawn(spec('grep beta'))];
    // Committed before they run.
    expect((await s.records.list('main')).map((child) => child.status)).toEqual(['running', 'running']);
    const done = await s.runtime.wait(started.map((child) => child.id));
    expect(done.map((child) => [child.status, child.result])).toEqual([['completed', 'found: alpha'], ['completed', 'found: beta']]);
    for (const child of done) {
      expect(await s.records.usage('main', child.id)).toMatchObject({ calls: 2 });
      const transcript = await s.records.transcript('main', child.id);
      expect(transcript.some((message) => message.role === 'toolResult' && message.toolName === 'grep')).toBe(true);
    }
    await s.runtime.closeAll('cancelled: the test ended');
  });

  it('journals a steer before answering, marks it consumed once the child took it in, and records a cancel', async () => {
    const s = await setup();
    const child = await s.runtime.spawn(spec('loop forever', { max_model_calls: 6 }));
    const input = await s.runtime.queue(child.id, 'steer', 'hurry');
    expect(input).toMatchObject({ lane: 'steer', text: 'hurry', status: 'accepted' });
    const [ended] = await s.runtime.wait([child.id]);
    expect(ended).toMatchObject({ status: 'limit', modelCalls: 6 });
    expect((await s.records.inputs('main', child.id)).map((row) => row.status)).toEqual(['consumed']);
    await expect(s.runtime.queue(child.id, 'steer', 'late')).rejects.toThrow(/is limit, not running/);

    const cancelled = await s.runtime.spawn(spec('loop again'));
    expect((await s.runtime.cancel(cancelled.id)).status).toBe('cancelled');
    await s.runtime.close(cancelled.id);
    await expect(s.records.get('main', cancelled.id)).rejects.toThrow(/no child/);
    await s.runtime.closeAll('cancelled: the test ended');
  });

  it('edits and removes queued follow-ups before the child takes them in, journal and live queue alike, and refuses once taken', async () => {
    let entered!: () => void;
    const calling = new Promise<void>((resolve) => (entered = resolve));
    let release!: () => void;
    const s = await setup({ entered, released: new Promise<void>((resolve) => (release = resolve)) });
    const child = await s.runtime.spawn(spec('hold'));
    await calling; // its model call is under way: follow-ups wait in its queue
    const [first, second, third] = [await s.runtime.queue(child.id, 'followUp', 'first'), await s.runtime.queue(child.id, 'followUp', 'second'), await s.runtime.queue(child.id, 'followUp', 'third')];
    // Two edits at once land in the order they were asked, in the journal and the live queue alike.
    const [, edited] = await Promise.all([s.runtime.changeInput(child.id, first!.id, { text: 'first, draft' }), s.runtime.changeInput(child.id, first!.id, { text: 'first, edited' })]);
    expect(edited.map((input) => [input.text, input.status])).toEqual([['first, edited', 'accepted'], ['second', 'accepted'], ['third', 'accepted']]);
    await s.runtime.changeInput(child.id, second!.id, { remove: true });
    await expect(s.runtime.changeInput(child.id, second!.id, { text: 'back again' })).rejects.toThrow(`input #${second!.id} of child ${child.id} is removed; it can no longer be changed`);
    await expect(s.runtime.changeInput(child.id, 9999, { remove: true })).rejects.toThrow(`child ${child.id} has no input #9999`);

    // An input journaled but no longer in the live queue (what a checkpoint taking it meanwhile looks like): refused, the journal put back.
    const stray = await s.records.journalInput('main', child.id, 'followUp', 'stray');
    await expect(s.runtime.changeInput(child.id, stray.id, { text: 'changed' })).rejects.toThrow(`input #${stray.id} of child ${child.id} is being taken in by the child`);
    await expect(s.runtime.changeInput(child.id, stray.id, { remove: true })).rejects.toThrow(/being taken in/);
    expect((await s.records.inputs('main', child.id)).find((input) => input.id === stray.id)).toMatchObject({ text: 'stray', status: 'accepted' });

    release();
    const [ended] = await s.runtime.wait([child.id]);
    expect(ended!.status).toBe('completed');
    const seen = (await s.records.transcript('main', child.id)).filter((message) => message.role === 'user').map((message) => JSON.stringify(message.content));
    expect(seen.some((text) => text.includes('first, edited'))).toBe(true);
    expect(seen.some((text) => text.includes('third'))).toBe(true);
    expect(seen.some((text) => text.includes('second') || text.includes('first, draft'))).toBe(false);
    const journal = await s.records.inputs('main', child.id);
    expect(journal.filter((input) => input.id !== stray.id).map((input) => [input.text, input.status])).toEqual([['first, edited', 'consumed'], ['second', 'removed'], ['third', 'consumed']]);
    await expect(s.runtime.changeInput(child.id, third!.id, { remove: true })).rejects.toThrow(/is completed, not running here/);
    await s.runtime.closeAll('cancelled: the test ended');
  });

  it('refuses a 4th running child before writing anything', async () => {
    const s = await setup();
    for (const task of ['loop 1', 'loop 2', 'loop 3']) await s.runtime.spawn(spec(task));
    await expect(s.runtime.spawn(spec('loop 4'))).rejects.toThrow(/3 children are already running, the limit/);
    expect(await s.records.list('main')).toHaveLength(3);
    await s.runtime.closeAll('cancelled: the test ended');
    expect((await s.records.list('main')).map((child) => child.status)).toEqual(['cancelled', 'cancelled', 'cancelled']);
  });
});

// The journal's order (positions swapped by moves) on both stores.
describeStores('DurableChildRuntime input moves', (kind) => {
    it('moves queued follow-ups within their lane, journal and live queue alike, and refuses past the ends or past an input being taken in', async () => {
      let entered!: () => void;
      const calling = new Promise<void>((resolve) => (entered = resolve));
      let release!: () => void;
      const s = await setup({ entered, released: new Promise<void>((resolve) => (release = resolve)) }, kind);
      const child = await s.runtime.spawn(spec('hold'));
      await calling;
      // Journaled ahead of the others but not in the live queue: what an input a checkpoint is taking in looks like.
      await s.records.journalInput('main', child.id, 'followUp', 'being taken');
      const [a, b, c] = [await s.runtime.queue(child.id, 'followUp', 'alpha'), await s.runtime.queue(child.id, 'followUp', 'beta'), await s.runtime.queue(child.id, 'followUp', 'gamma')];
      const steer = await s.runtime.queue(child.id, 'steer', 'steer one');
      const order = (inputs: Array<{ text: string }>) => inputs.map((input) => input.text);

      expect(order(await s.runtime.changeInput(child.id, c!.id, { move: -1 }))).toEqual(['being taken', 'alpha', 'gamma', 'beta', 'steer one']);
      await expect(s.runtime.changeInput(child.id, b!.id, { move: 1 })).rejects.toThrow(`input #${b!.id} is already the last of child ${child.id}'s queued follow-ups`);
      await expect(s.runtime.changeInput(child.id, steer!.id, { move: -1 })).rejects.toThrow(/already the first of .* queued steers/);
      // The journal would swap alpha with the input being taken in; the live queue refuses, and the journal is put back.
      await expect(s.runtime.changeInput(child.id, a!.id, { move: -1 })).rejects.toThrow(`input #${a!.id} of child ${child.id} cannot move past an input the child is taking in; nothing changed`);
      expect(order(await s.records.inputs('main', child.id))).toEqual(['being taken', 'alpha', 'gamma', 'beta', 'steer one']);
      expect(order(await s.runtime.changeInput(child.id, a!.id, { move: 1 }))).toEqual(['being taken', 'gamma', 'alpha', 'beta', 'steer one']);

      release();
      const [ended] = await s.runtime.wait([child.id]);
      expect(ended!.status).toBe('completed');
      const seen = (await s.records.transcript('main', child.id)).filter((message) => message.role === 'user').map((message) => String(message.content));
      // The live queue took them in the order the journal shows.
      const taken = seen.filter((text) => ['alpha', 'beta', 'gamma'].some((word) => text.includes(word)));
      expect(taken.map((text) => ['gamma', 'alpha', 'beta'].findIndex((word) => text.includes(word)))).toEqual([0, 1, 2]);
      expect(order((await s.records.inputs('main', child.id)).filter((input) => input.lane === 'followUp'))).toEqual(['being taken', 'gamma', 'alpha', 'beta']);
      await s.runtime.closeAll('cancelled: the test ended');
    });
});
