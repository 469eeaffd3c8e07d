/** Durable children on a real SQLite store: faux-model children that grep a workspace, with their records, inputs and usage in the store. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFauxStreamFn } from '../../../plugins/faux/index.js';
import { createBuiltinTools } from '../../../plugins/tools/index.js';
import { ChildRecordStore, DurableChildRuntime, createSdkChildHost, resolveChildSpec } from '../../../plugins/children/index.js';
import { tempDir } from '../../support/temp.js';
import { openTestStore } from '../sessions/helpers.js';

/** A child greps for the word its task names, then answers with what grep found; "loop" children keep telling the time. */
async function setup() {
  const workspace = tempDir();
  fs.writeFileSync(path.join(workspace, 'a.txt'), 'alpha marker one\n');
  fs.writeFileSync(path.join(workspace, 'b.txt'), 'beta marker two\n');
  const stream = createFauxStreamFn({
    responses: (request) => {
      const task = String(request.messages.find((message) => message.role === 'user')!.content);
      const lastTool = [...request.messages].reverse().find((message) => message.role === 'toolResult');
      if (task.startsWith('loop')) return { toolCalls: [{ name: 'current_time', arguments: {} }] };
      if (lastTool) return { text: `found: ${JSON.stringify(lastTool.content).includes('marker') ? task.split(' ')[1] : 'nothing'}` };
      return { toolCalls: [{ name: 'grep', arguments: { pattern: task.split(' ')[1]!, path: '.' } }] };
    },
  });
  const opened = await openTestStore();
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

  it('refuses a 4th running child before writing anything', async () => {
    const s = await setup();
    for (const task of ['loop 1', 'loop 2', 'loop 3']) await s.runtime.spawn(spec(task));
    await expect(s.runtime.spawn(spec('loop 4'))).rejects.toThrow(/3 children are already running, the limit/);
    expect(await s.records.list('main')).toHaveLength(3);
    await s.runtime.closeAll('cancelled: the test ended');
    expect((await s.records.list('main')).map((child) => child.status)).toEqual(['cancelled', 'cancelled', 'cancelled']);
  });
});
