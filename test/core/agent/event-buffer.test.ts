import { describe, expect, it } from 'vitest';
import { EventBuffer } from '../../../core/agent/event-buffer.js';
import { type AgentTool } from '../../../core/index.js';
import { scripted } from './helpers.js';

/** Reads one item per macrotask, so producers keep finding the buffer full. */
async function slowRead<T>(buffer: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of buffer) {
    items.push(item);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return items;
}

describe('EventBuffer', () => {
  it('wakes every producer waiting for space, not only the last one, and never holds more than its capacity', async () => {
    const buffer = new EventBuffer<string>(2);
    let largest = 0;
    const produce = async (name: string) => {
      for (let index = 0; index < 5; index++) {
        await buffer.put(`${name}${index}`);
        largest = Math.max(largest, buffer.size);
      }
    };
    const reading = (async () => {
      const items: string[] = [];
      for await (const item of buffer) {
        items.push(item);
        await new Promise((resolve) => setImmediate(resolve));
      }
      return items;
    })();
    await Promise.all([produce('a'), produce('b'), produce('c')]);
    buffer.end();
    const items = await reading;
    expect(items).toHaveLength(15);
    expect(items.filter((item) => item.startsWith('a'))).toEqual(['a0', 'a1', 'a2', 'a3', 'a4']);
    expect(largest).toBeLessThanOrEqual(2);
  });

  it('two readers waiting at once are both woken (a second iterator does not strand the first)', async () => {
    const buffer = new EventBuffer<number>(4);
    const first = buffer[Symbol.asyncIterator]().next();
    const second = buffer[Symbol.asyncIterator]().next();
    await buffer.put(1);
    await buffer.put(2);
    const values = (await Promise.all([first, second])).map((result) => result.value);
    expect(values.sort()).toEqual([1, 2]);
    buffer.end();
  });

  it('unbound() releases every waiting producer', async () => {
    const buffer = new EventBuffer<number>(1);
    buffer.push(0);
    const waiting = [buffer.put(1), buffer.put(2), buffer.put(3)];
    buffer.unbound();
    await Promise.all(waiting);
    expect(buffer.size).toBe(4);
  });

  it('two parallel tools streaming updates to a slow reader both finish', async () => {
    const chatty = (name: string): AgentTool => ({
      name,
      description: name,
      parameters: { type: 'object' },
      execute: async (_args, { onUpdate }) => {
        for (let index = 0; index < 300; index++) await onUpdate?.({ content: [{ type: 'text', text: `${name} ${index}` }] });
        return { content: [{ type: 'text', text: `${name} done` }] };
      },
    });
    const { agent } = scripted([{ toolCalls: [{ name: 'a', arguments: {} }, { name: 'b', arguments: {} }] }, { text: 'ok' }], { tools: [chatty('a'), chatty('b')] });
    const stream = agent.prompt('go');
    const events = await slowRead(stream);
    expect(events.filter((event) => event.type === 'tool_update')).toHaveLength(600);
    expect((await stream.result()).status).toBe('completed');
  });
});
