import { describe, expect, it } from 'vitest';
import { ChannelInbox, chunkText, replyTextOf } from '../../../plugins/channels/index.js';

const message = (id: string) => ({ id, sender: 'a', replyTo: 'a', text: id });

describe('ChannelInbox', () => {
  it('holds at most its capacity, hands messages out in order, and makes a waiting pusher wait for room', async () => {
    const inbox = new ChannelInbox(2);
    expect(inbox.tryPush(message('1'))).toBe(true);
    expect(inbox.tryPush(message('2'))).toBe(true);
    expect(inbox.tryPush(message('3'))).toBe(false);
    let room = false;
    const waiting = inbox.waitForRoom().then((value) => (room = value));
    await Promise.resolve();
    expect(room).toBe(false);
    expect((await inbox.take())!.id).toBe('1');
    await waiting;
    expect(room).toBe(true);
    expect(inbox.tryPush(message('3'))).toBe(true);
    expect([(await inbox.take())!.id, (await inbox.take())!.id]).toEqual(['2', '3']);
    expect(inbox.highWater).toBe(2);
  });

  it('closing drops what waits and wakes the taker and the pushers', async () => {
    const inbox = new ChannelInbox(1);
    inbox.tryPush(message('1'));
    const room = inbox.waitForRoom();
    expect(inbox.close()).toBe(1);
    expect(await room).toBe(false);
    expect(await inbox.take()).toBeUndefined();
    expect(inbox.tryPush(message('2'))).toBe(false);
  });
});

describe('chunkText', () => {
  it('splits at paragraph, line and word breaks, and inside a word only when it must, losing no text', () => {
    expect(chunkText('one two three', 8)).toEqual(['one two', 'three']);
    expect(chunkText('para one\n\npara two is longer', 20)).toEqual(['para one', 'para two is longer']);
    expect(chunkText('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
    expect(chunkText('short', 100)).toEqual(['short']);
    expect(chunkText('   ', 10)).toEqual([]);
  });
});

describe('replyTextOf', () => {
  const assistant = (content: unknown[], stopReason = 'stop') => ({ type: 'message_end', message: { role: 'assistant', content, stopReason } }) as never;
  it('takes the text of completed assistant messages and handled feedback, nothing else', () => {
    expect(replyTextOf(assistant([{ type: 'thinking', thinking: 'secret' }, { type: 'text', text: ' hi ' }, { type: 'toolCall', id: '1', name: 'bash', arguments: {} }]))).toBe('hi');
    expect(replyTextOf(assistant([{ type: 'toolCall', id: '1', name: 'bash', arguments: {} }]))).toBeUndefined();
    expect(replyTextOf(assistant([{ type: 'text', text: 'half' }], 'aborted'))).toBeUndefined();
    expect(replyTextOf({ type: 'message_end', message: { role: 'toolResult', content: [{ type: 'text', text: 'out' }] } } as never)).toBeUndefined();
    expect(replyTextOf({ type: 'input_handled', receipt: { source: 'prompt', text: '/x', images: [], feedback: 'done by extension' } } as never)).toBe('done by extension');
  });
});
