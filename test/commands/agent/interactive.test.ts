/** The interactive chat loop, driven through a stream instead of a TTY. */
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Agent, LIMITS, type AssistantStreamEvent, type ModelStreamFn } from '../../../core/index.js';
import { runInteractive } from '../../../commands/agent/_lib/interactive.js';
import { EventRenderer, type Output } from '../../../commands/agent/_lib/render.js';
import { createFauxStreamFn } from '../../../plugins/faux/index.js';

/** A model whose first answer waits until `release()`; later answers come at once. */
function gatedModel() {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const reply = createFauxStreamFn({ responses: [{ text: 'first answer' }, { text: 'second answer' }] });
  let calls = 0;
  const streamFn = Object.assign(
    async function* (model: string, context: Parameters<ModelStreamFn>[1], options: Parameters<ModelStreamFn>[2]): AsyncIterable<AssistantStreamEvent> {
      if (calls++ === 0) await gate;
      yield* reply(model, context, options);
    },
    { resolveModel: reply.resolveModel },
  );
  return { streamFn, release };
}

describe('interactive chat', () => {
  // readline echoes the typed lines to the real stderr; keep the test log readable.
  afterEach(() => void vi.restoreAllMocks());

  it('reports a refused /steer or prompt as one error line and keeps the chat running', async () => {
    const { streamFn, release } = gatedModel();
    const agent = new Agent(streamFn, { model: 'faux/test' });
    const out: string[] = [];
    const err: string[] = [];
    const output: Output = { stdout: (text) => void out.push(text), stderr: (text) => void err.push(text) };
    const input = new PassThrough();
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const done = runInteractive(agent, new EventRenderer(output, false), output, input);

    input.write('hello\n');
    await expect.poll(() => agent.isIdle).toBe(false);
    // Over the queued-input limit: the agent refuses it; the chat must say so, not crash.
    input.write(`/steer ${'x'.repeat(LIMITS.queuedInputBytes + 1)}\n`);
    await expect.poll(() => err.join('')).toMatch(/xdog: .*\[LIMIT_EXCEEDED\]/);
    // The hint names what a person at the chat can do, not an SDK call.
    expect(err.join('')).toContain('[LIMIT_EXCEEDED] (send it as its own message once this run has finished)');
    expect(err.join('')).not.toMatch(/prompt\(\)|drainInputs\(\)/);
    release();
    await expect.poll(() => out.join('')).toContain('first answer');
    await expect.poll(() => agent.isIdle).toBe(true);

    // A prompt over the message limit is refused the same way; the next one still runs.
    input.write(`${'y'.repeat(LIMITS.messageTextBytes + 1)}\n`);
    await expect.poll(() => err.filter((line) => line.includes('[LIMIT_EXCEEDED]')).length).toBe(2);
    input.write('again\n');
    await expect.poll(() => out.join('')).toContain('second answer');
    await expect.poll(() => agent.isIdle).toBe(true);

    input.end();
    await done;
    await agent.close();
  });
});
