/** The TUI's batch of streaming updates and its details viewer, without a terminal. */
import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../../core/limits.js';
import { ChatView } from '../../../plugins/claw-tui/chat-view.js';
import { DetailsViewer } from '../../../plugins/claw-tui/details-view.js';
import { FrameBatch } from '../../../plugins/claw-tui/frame-batch.js';

const frame = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 40));

describe('FrameBatch', () => {
  it('applies a burst in order with one render per frame, never more than its limit waiting', async () => {
    const applied: number[] = [];
    let frames = 0;
    let most = 0;
    const batch = new FrameBatch<number>((n) => applied.push(n), () => frames++, { limit: 100, budgetMs: 1000 });
    for (let n = 0; n < 1000; n++) {
      batch.push(n);
      most = Math.max(most, batch.size);
    }
    expect(most).toBeLessThanOrEqual(100);
    // Full queues were applied as they filled: 9 of them, then the last 100 wait for the frame.
    expect(applied).toHaveLength(900);
    expect(frames).toBe(9);
    const deadline = Date.now() + 30_000;
    while (batch.size && Date.now() < deadline) await frame();
    expect(applied).toEqual(Array.from({ length: 1000 }, (_, n) => n));
    expect(frames).toBe(10);
  });

  it('stops a frame at its budget and lets the event loop run before the rest', async () => {
    const applied: number[] = [];
    let between = 0;
    const batch = new FrameBatch<number>(
      (n) => {
        applied.push(n);
        const until = performance.now() + 2;
        while (performance.now() < until);
      },
      () => undefined,
      { budgetMs: 5 },
    );
    for (let n = 0; n < 20; n++) batch.push(n);
    const ticks = setInterval(() => between++, 0);
    const deadline = Date.now() + 30_000;
    while (batch.size && Date.now() < deadline) await frame();
    clearInterval(ticks);
    expect(applied).toEqual(Array.from({ length: 20 }, (_, n) => n));
    // The 20 items took several frames, with timers (a key read) run in between.
    expect(between).toBeGreaterThan(1);
  });

  it('stop drops what waits', async () => {
    const applied: number[] = [];
    const batch = new FrameBatch<number>((n) => applied.push(n), () => undefined);
    batch.push(1);
    batch.stop();
    await frame();
    expect(applied).toEqual([]);
  });
});

describe('DetailsViewer', () => {
  it('shows tool calls and reasoning newest first, ← → between them, the log bounded', () => {
    const chat = new ChatView();
    chat.addMessage({ role: 'assistant', content: [{ type: 'thinking', thinking: 'let me think' }, { type: 'toolCall', id: 't1', name: 'bash', arguments: { command: 'echo one' } }] } as never, 3);
    chat.toolEnd('t1', 'one', false);
    chat.toolStart('t2', 'read', { path: 'a.txt' });
    const entries = chat.details.list();
    expect(entries.map((entry) => entry.title)).toEqual(['reasoning of #3', 'bash (tool call)', 'read (tool call, running)']);
    let closed = false;
    const viewer = new DetailsViewer(entries, () => 20, () => (closed = true));
    expect(viewer.render(80).join('\n')).toMatch(/details 3\/3 · read \(tool call, running\)[\s\S]*"path": "a.txt"[\s\S]*still running/);
    viewer.handleInput('\x1b[D');
    expect(viewer.render(80).join('\n')).toMatch(/details 2\/3 · bash[\s\S]*"command": "echo one"[\s\S]*result:\n\s*one/);
    viewer.handleInput('\x1b[D');
    viewer.handleInput('\x1b[D');
    expect(viewer.render(80).join('\n')).toMatch(/details 1\/3 · reasoning of #3[\s\S]*let me think/);
    viewer.handleInput('q');
    expect(closed).toBe(true);
    for (let n = 0; n < LIMITS.tuiDetailEntries + 5; n++) chat.toolStart(`x${n}`, 'bash', {});
    expect(chat.details.list()).toHaveLength(LIMITS.tuiDetailEntries);
  });
});
