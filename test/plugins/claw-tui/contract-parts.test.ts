/** The TUI contract's parts that need no terminal: queue notices and listing, /status lines, /help against docs/tui.md, the pixel limit. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Attachments } from '../../../plugins/claw-tui/attachments.js';
import { queueListing, queuedNotice, queuePreview, restoredDraft, resumeRefusal } from '../../../plugins/claw-tui/queue-view.js';
import { statusText } from '../../../plugins/claw-tui/session-commands.js';
import { SLASH_COMMANDS } from '../../../plugins/claw-tui/slash-commands.js';
import type { Message } from '../../../core/index.js';
import { repoRoot } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';

const turn = (id: string, text: string) => ({ id, text, images: [] });

describe('queue view', () => {
  it('previews queued turns in one line and says when they are held', () => {
    const turns = [turn('q1', 'first   question\nwith lines'), turn('q2', 'x'.repeat(80)), turn('q3', 'c'), turn('q4', 'd')];
    const line = queuePreview(turns, true);
    expect(line).toMatch(/^queued q1 first question with lines · q2 x{31}… · q3 c · \+1 more · held: \/queue resume sends them$/);
    expect(queuePreview([], false)).toBe('');
  });

  it('lists the gateway inputs (iN) beside the client turns (qN)', () => {
    const listing = queueListing([turn('q1', 'mine')], [{ id: 'i7', lane: 'followUp', text: 'later', state: 'waiting' }], false);
    expect(listing.split('\n')).toEqual(['i7 followUp (waiting) later', 'client:', 'q1 mine']);
    expect(queueListing([], [], false)).toBe('gateway: nothing queued\nclient: the queue is empty');
  });

  it('tells the truth about a held queue and a resume with nothing held', () => {
    expect(queuedNotice(turn('q2', 'a'), 2, true)).toBe('queued q2 (2 waiting); the queue is held: /queue resume sends it');
    expect(queuedNotice(turn('q2', 'a'), 2, false)).toMatch(/it is sent when the running turn ends/);
    expect(resumeRefusal(0, false)).toBe('the queue is empty; there is nothing to resume');
    expect(resumeRefusal(3, false)).toMatch(/not held/);
    expect(resumeRefusal(3, true)).toBeUndefined();
  });

  it('puts restored texts ahead of the draft, oldest first', () => {
    expect(restoredDraft(['sent', 'q1', 'q2'], 'typing')).toBe('sent\nq1\nq2\ntyping');
    expect(restoredDraft(['q1'], '')).toBe('q1');
  });
});

describe('/status and /help', () => {
  it('shows a reply that only calls tools by its calls', () => {
    const message = { role: 'assistant', content: [{ type: 'toolCall', id: 't1', name: 'bash', arguments: { command: 'echo one' } }] } as unknown as Message;
    expect(statusText(message)).toBe('→ bash echo one');
  });

  it('/help knows every command docs/tui.md lists', () => {
    const doc = fs.readFileSync(path.join(repoRoot, 'docs/tui.md'), 'utf8');
    const table = doc.slice(doc.indexOf('## Commands'), doc.indexOf('### Exported files'));
    const documented = new Set([...table.matchAll(/^\| `\/([a-z][a-z-]*)/gm)].map((match) => match[1]!).concat([...table.matchAll(/`\/([a-z][a-z-]*)[ `]/g)].map((match) => match[1]!)));
    documented.delete('ext-ID-NAME'.toLowerCase());
    const known = new Set(SLASH_COMMANDS.map((command) => command.name));
    expect([...documented].filter((name) => !known.has(name) && name !== 'ext-id-name' && name !== 'ext')).toEqual([]);
  });
});

describe('attachments', () => {
  it('refuses an image over 100 megapixels by its header', () => {
    const dir = tempDir('xdog-attach-');
    const header = Buffer.alloc(33);
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]).copy(header);
    header.write('IHDR', 12, 'latin1');
    header.writeUInt32BE(20_000, 16);
    header.writeUInt32BE(10_000, 20);
    fs.writeFileSync(path.join(dir, 'huge.png'), header);
    expect(() => new Attachments().add(path.join(dir, 'huge.png'))).toThrow(/20000x10000 pixels, over the 100-megapixel limit/);
    header.writeUInt32BE(100, 16);
    fs.writeFileSync(path.join(dir, 'small.png'), header);
    expect(new Attachments().add(path.join(dir, 'small.png'))).toMatchObject({ width: 100, height: 10_000 });
  });
});
