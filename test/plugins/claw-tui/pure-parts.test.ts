/** The TUI's parts that need no terminal: queue, commands, key bindings, attachments, redaction, exports. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../../core/limits.js';
import { Attachments, sniffImage } from '../../../plugins/claw-tui/attachments.js';
import { Text } from '@mariozechner/pi-tui';
import { ChatView } from '../../../plugins/claw-tui/chat-view.js';
import { LongText } from '../../../plugins/claw-tui/long-text.js';
import { pathMessages, type PathMessage, type TranscriptEntry } from '../../../plugins/claw-tui/conversation.js';
import { renderConversation, writePrivateFile } from '../../../plugins/claw-tui/export-formats.js';
import { InputQueue } from '../../../plugins/claw-tui/input-queue.js';
import { actionKeyLabel, defaultBindings, isKeyId, keybindingsFile, keyLabel, loadKeybindings } from '../../../plugins/claw-tui/keybindings.js';
import { findMatches } from '../../../plugins/claw-tui/overlays.js';
import { environmentSecrets, redact } from '../../../core/redact.js';
import { SLASH_COMMANDS, isCommand, parseCommand, searchCommands, unsupported } from '../../../plugins/claw-tui/slash-commands.js';
import { tempDir } from '../../support/temp.js';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
// A start-of-frame header (16x16): the TUI reads the size before attaching.
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xc0, 0x00, 0x11, 0x08, 0x00, 0x10, 0x00, 0x10, 0x03, 0x01, 0x22, 0x00]);
const WEBP = Buffer.from('RIFF\0\0\0\0WEBPVP8 ', 'latin1');

describe('InputQueue', () => {
  it('keeps order, edits, moves and removes by id', () => {
    const queue = new InputQueue();
    const a = queue.add('a');
    const b = queue.add('b');
    queue.add('c');
    queue.move(b.id, 'up');
    queue.edit(a.id, 'A');
    queue.remove('q3');
    expect(queue.list().map((turn) => turn.text)).toEqual(['b', 'A']);
    expect(() => queue.move(b.id, 'up')).toThrow(/already at the front/);
    expect(() => queue.remove('q9')).toThrow(/no queued turn q9/);
    expect(queue.shift()?.text).toBe('b');
  });

  it('refuses the 51st turn and a text over 64 KiB, leaving the queue as it was', () => {
    const queue = new InputQueue();
    for (let i = 0; i < LIMITS.clawQueuedInputs; i++) queue.add(`t${i}`);
    expect(() => queue.add('one more')).toThrow(/already holds 50 turns/);
    expect(queue.size).toBe(50);
    const small = new InputQueue();
    expect(() => small.add('x'.repeat(LIMITS.clawInputBytes + 1))).toThrow(/over the 65536-byte limit/);
    expect(small.size).toBe(0);
    small.add('x');
    expect(() => small.edit('q1', 'y'.repeat(65 * 1024))).toThrow(/LIMIT|limit/);
    expect(small.list()[0]!.text).toBe('x');
  });
});

describe('slash commands', () => {
  it('parses names and arguments, and refuses unknown commands with a hint', () => {
    expect(parseCommand('/fork 2')).toMatchObject({ command: { name: 'fork' }, rest: '2' });
    expect(parseCommand('/steer two\nlines')).toMatchObject({ command: { name: 'steer' }, rest: 'two\nlines' });
    expect(() => parseCommand('/nope x')).toThrow(/unknown command \/nope/);
    expect(isCommand('/help')).toBe(true);
    expect(isCommand('//not a command')).toBe(false);
    expect(isCommand('/ spaced')).toBe(false);
  });

  it('marks a command unsupported when the gateway lacks a method it needs', () => {
    const compact = SLASH_COMMANDS.find((entry) => entry.name === 'compact')!;
    expect(unsupported(compact, new Set(['session.show']))?.message).toMatch(/unsupported by this gateway.*session\.compact/);
    expect(unsupported(compact, new Set(['session.compact']))).toBeUndefined();
    expect(searchCommands('export').map((entry) => entry.name)).toContain('export');
  });
});

describe('keybindings.json', () => {
  it('remaps actions; a missing file means the defaults', () => {
    const dir = tempDir('xdog-keys-');
    expect(loadKeybindings(path.join(dir, 'none.json'))).toEqual({ bindings: defaultBindings(), extensionKeys: {} });
    fs.writeFileSync(path.join(dir, 'k.json'), JSON.stringify({ steer: 'alt+t', newLine: ['alt+enter'] }));
    const loaded = loadKeybindings(path.join(dir, 'k.json'));
    expect(loaded.notice).toBeUndefined();
    expect(loaded.bindings.steer).toEqual(['alt+t']);
    expect(loaded.bindings.newLine).toEqual(['alt+enter']);
  });

  it.each([
    ['{ not json', /not valid JSON/],
    [JSON.stringify({ fly: 'ctrl+f' }), /key "fly" is not an action/],
    [JSON.stringify({ steer: 'hyper+q' }), /key "steer": "hyper\+q" is not a key/],
    [JSON.stringify({ steer: 'ctrl+l' }), /key "steer": "ctrl\+l" is reserved to "repaint"; choose another key/],
    [JSON.stringify({ steer: 5 }), /key "steer"/],
    // Bare printable keys type text: a letter, a digit, a symbol, space, or any of them with Shift only.
    [JSON.stringify({ steer: 'a' }), /key "steer": "a" is a bare printable key, which types text; add a modifier such as "alt\+a"/],
    [JSON.stringify({ queue: ['ctrl+q', '7'] }), /key "queue": "7" is a bare printable key/],
    [JSON.stringify({ diff: 'shift+/' }), /key "diff": "shift\+\/" is a bare printable key/],
    [JSON.stringify({ copy: 'space' }), /key "copy": "space" is a bare printable key/],
    [JSON.stringify({ 'ext-keyed-compose': 'x' }), /key "ext-keyed-compose": "x" is a bare printable key/],
    // Escape and Ctrl+L are reserved: their actions stay, and no other action takes them.
    [JSON.stringify({ abort: 'ctrl+x' }), /key "abort": "abort" is reserved to "escape" and cannot be remapped or disabled; remove it from the file/],
    [JSON.stringify({ abort: [] }), /"abort" is reserved to "escape"/],
    [JSON.stringify({ repaint: ['ctrl+l', 'f5'] }), /key "repaint": "repaint" is reserved to "ctrl\+l"/],
    [JSON.stringify({ quit: 'esc' }), /key "quit": "esc" is reserved to "abort"; choose another key/],
    [JSON.stringify({ 'ext-keyed-compose': 'ctrl+l' }), /key "ext-keyed-compose": "ctrl\+l" is reserved to "repaint"/],
    // submit cannot go without a key: the draft could never be sent.
    [JSON.stringify({ submit: [] }), /key "submit": "submit" needs a key, or no draft could be sent; give it one such as "enter"/],
    [JSON.stringify({ send: [] }), /key "send": "submit" needs a key/],
    // One action under both of its names is a conflict.
    [JSON.stringify({ submit: 'enter', send: 'ctrl+s' }), /key "send": the action "submit" is named twice \(as "submit" and "send"\); keep one of them/],
    [JSON.stringify({ save_draft: 'f8', keepDraft: 'f9' }), /the action "keepDraft" is named twice/],
    // Keys compare in one spelling: modifier order and esc/return do not make a new key.
    [JSON.stringify({ steer: 'shift+ctrl+p', queue: 'ctrl+shift+p' }), /key "queue": "ctrl\+shift\+p" is bound to "steer" too/],
    [JSON.stringify({ tree: 'ctrl+f1' }), /key "tree": "ctrl\+f1" is not a key/],
    // Extension overrides: no builtin's key, none of the editor's, no two commands on one key.
    [JSON.stringify({ 'ext-keyed-compose': 'alt+s' }), /key "ext-keyed-compose": "alt\+s" is bound to "steer" too/],
    [JSON.stringify({ 'ext-keyed-compose': 'ctrl+a' }), /key "ext-keyed-compose": "ctrl\+a" is the editor's, which an extension shortcut cannot take/],
    [JSON.stringify({ 'ext-keyed-compose': 'alt+x', 'ext-keyed-other': ['alt+x'] }), /key "ext-keyed-other": "alt\+x" is bound to "ext-keyed-compose" too/],
    [JSON.stringify({ 'Ext-Keyed-Compose': 'alt+x' }), /key "Ext-Keyed-Compose" is not an action/],
  ])('falls back to the defaults with a notice naming the file and the key: %s', (content, problem) => {
    const file = path.join(tempDir('xdog-keys-'), 'keybindings.json');
    fs.writeFileSync(file, content);
    const loaded = loadKeybindings(file);
    expect(loaded.bindings).toEqual(defaultBindings());
    expect(loaded.notice).toContain(file);
    expect(loaded.notice).toMatch(problem);
  });

  it('is read from $CLAW_DIR/keybindings.json when CLAW_DIR is set, else from the config dir (B7)', () => {
    const clawDir = tempDir('xdog-claw-dir-');
    fs.writeFileSync(path.join(clawDir, 'keybindings.json'), JSON.stringify({ steer: 'alt+t' }));
    const file = keybindingsFile({ CLAW_DIR: clawDir, XDG_CONFIG_HOME: '/nowhere' });
    expect(file).toBe(path.join(clawDir, 'keybindings.json'));
    expect(loadKeybindings(file).bindings.steer).toEqual(['alt+t']);
    const config = tempDir('xdog-config-home-');
    const saved = process.env.XDG_CONFIG_HOME;
    process.env.XDG_CONFIG_HOME = config;
    try {
      expect(keybindingsFile({})).toBe(path.join(config, 'xdog', 'claw', 'keybindings.json'));
    } finally {
      if (saved === undefined) delete process.env.XDG_CONFIG_HOME;
      else process.env.XDG_CONFIG_HOME = saved;
    }
  });

  it('knows key ids', () => {
    for (const key of ['ctrl+g', 'alt+enter', 'shift+ctrl+p', 'f12', 'pageUp', 'ctrl++']) expect(isKeyId(key)).toBe(true);
    // pi-tui never matches a function key with a modifier.
    for (const key of ['ctrl+ctrl+a', 'meta+a', 'f13', '', 'ctrl+', 'shift+f1']) expect(isKeyId(key)).toBe(false);
    expect(keyLabel('ctrl+alt+s')).toBe('Ctrl+Alt+S');
    expect(keyLabel('f1')).toBe('F1');
    expect(keyLabel('shift+enter')).toBe('Shift+Enter');
  });

  it('[] disables an action; the seed\'s action names are aliases of ours; keys, tree and fullscreen are actions', () => {
    const file = path.join(tempDir('xdog-keys-'), 'keybindings.json');
    fs.writeFileSync(file, JSON.stringify({ steer: [], send: 'ctrl+s', newline: 'alt+n', external_editor: 'f4', follow_up: 'alt+u', save_draft: 'f8', toggleTools: 'ctrl+t', tree: 'f2', fullscreen: ['f3'] }));
    const loaded = loadKeybindings(file);
    expect(loaded.notice).toBeUndefined();
    expect(loaded.bindings).toMatchObject({ steer: [], submit: ['ctrl+s'], newLine: ['alt+n'], externalEditor: ['f4'], followUp: ['alt+u'], keepDraft: ['f8'], details: ['ctrl+t'], tree: ['f2'], fullscreen: ['f3'], keys: ['f1'] });
    expect(actionKeyLabel(loaded.bindings, 'steer')).toBeUndefined();
    expect(actionKeyLabel(loaded.bindings, 'submit')).toBe('Ctrl+S');
    // Unbound by default: tree and fullscreen; F1 lists the keys.
    expect(defaultBindings()).toMatchObject({ tree: [], fullscreen: [], keys: ['f1'] });
    // A disabled action's old key is free for another.
    fs.writeFileSync(file, JSON.stringify({ steer: [], followUp: 'alt+s' }));
    expect(loadKeybindings(file)).toMatchObject({ bindings: { steer: [], followUp: ['alt+s'] } });
    expect(loadKeybindings(file).notice).toBeUndefined();
  });

  it('remaps and unbinds extension shortcuts by their full command name', () => {
    const file = path.join(tempDir('xdog-keys-'), 'keybindings.json');
    fs.writeFileSync(file, JSON.stringify({ 'ext-keyed-compose': 'alt+x', 'ext-keyed-blocked': [], 'ext-other-two': ['alt+1', 'alt+2'] }));
    const loaded = loadKeybindings(file);
    expect(loaded.notice).toBeUndefined();
    expect(loaded.extensionKeys).toEqual({ 'ext-keyed-compose': ['alt+x'], 'ext-keyed-blocked': [], 'ext-other-two': ['alt+1', 'alt+2'] });
    expect(loaded.bindings).toEqual(defaultBindings());
  });
});

describe('attachments', () => {
  it('knows images by their bytes, not their names', () => {
    expect(sniffImage(PNG)).toBe('image/png');
    expect(sniffImage(JPEG)).toBe('image/jpeg');
    expect(sniffImage(WEBP)).toBe('image/webp');
    expect(sniffImage(Buffer.from('GIF89a......'))).toBeUndefined();
  });

  it('refuses a non-image, a 5th image and an 11 MiB image, and holds at most 40 MiB', () => {
    const dir = tempDir('xdog-attach-');
    const file = (name: string, bytes: Buffer): string => {
      fs.writeFileSync(path.join(dir, name), bytes);
      return path.join(dir, name);
    };
    const attachments = new Attachments();
    expect(() => attachments.add(file('fake.png', Buffer.from('not an image at all')))).toThrow(/not a PNG, JPEG or WebP/);
    expect(() => attachments.add(file('big.png', Buffer.concat([PNG, Buffer.alloc(11 * 1024 * 1024)])))).toThrow(/11\.0 MiB, over the 10 MiB limit/);
    for (let i = 0; i < 4; i++) attachments.add(file(`ok${i}.jpg`, JPEG));
    expect(() => attachments.add(file('fifth.webp', WEBP))).toThrow(/at most 4 images/);
    expect(attachments.list().map((item) => item.id)).toEqual(['a1', 'a2', 'a3', 'a4']);
    const nine = Buffer.concat([PNG, Buffer.alloc(9 * 1024 * 1024)]);
    const held = new Attachments(() => 32 * 1024 * 1024);
    expect(() => held.add(file('nine.png', nine))).toThrow(/more than 40 MiB/);
  });
});

describe('redaction and exports', () => {
  const entries: TranscriptEntry[] = [
    { id: 1, parentId: null, kind: 'message', payload: { message: { role: 'user', content: 'my key is sk-proj-ABCDEFGHIJKLMNOPQRSTUV123 <script>alert(1)</script>' } }, createdAt: 0 },
    { id: 2, parentId: 1, kind: 'message', payload: { message: { role: 'assistant', content: [{ type: 'text', text: 'noted' }] } }, createdAt: 0 },
    { id: 3, parentId: 1, kind: 'message', payload: { message: { role: 'assistant', content: [{ type: 'text', text: 'other branch' }] } }, createdAt: 0 },
  ];

  it('follows the path from the leaf', () => {
    expect(pathMessages(entries, 3).map((entry) => [entry.index, entry.entryId])).toEqual([
      [1, 1],
      [2, 3],
    ]);
  });

  it('redacts known key shapes and secret-named environment values', () => {
    expect(redact('token ghp_abcdefghijklmnopqrstuvwxyz0123456789 ok')).toBe('token [redacted] ok');
    expect(redact('Authorization: Bearer abcdefghijklmnopqrstuvwxyz')).toBe('Authorization: Bearer [redacted]');
    expect(environmentSecrets({ MY_API_KEY: 'hunter2hunter2', HOME: '/home/someone', SHORT_TOKEN: 'abc' })).toEqual(['hunter2hunter2']);
    expect(redact('pw hunter2hunter2', ['hunter2hunter2'])).toBe('pw [redacted]');
  });

  it('shares a standalone page with a strict CSP, no scripts, no links, secrets redacted', () => {
    const html = renderConversation(pathMessages(entries, 2), 'html', []);
    expect(html).toContain('Content-Security-Policy');
    expect(html).toContain("script-src 'none'");
    expect(html).not.toMatch(/<script|<a |href=/i);
    expect(html).not.toContain('sk-proj-ABCDEFGHIJKLMNOPQRSTUV123');
    expect(html).toContain('&lt;script&gt;');
  });

  it('writes new 0600 files only: never over an existing one, never into a missing directory', () => {
    const dir = tempDir('xdog-export-');
    const file = writePrivateFile(path.join(dir, 'out.md'), 'one');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(() => writePrivateFile(file, 'two')).toThrow(/already exists/);
    expect(fs.readFileSync(file, 'utf8')).toBe('one');
    expect(() => writePrivateFile(path.join(dir, 'missing', 'x.md'), 'x')).toThrow(/does not exist/);
  });

  it('finds literal, case-insensitive matches', () => {
    expect(findMatches(['Hello', 'a.b', 'HELLO there', 'axb'], 'hello')).toEqual([0, 2]);
    expect(findMatches(['a.b', 'axb'], 'a.b')).toEqual([0]);
  });
});

describe('ChatView', () => {
  it('draws only the latest messages of a long session and says how many it left out', () => {
    const messages = Array.from({ length: LIMITS.tuiShownMessages + 50 }, (_, i) => ({ index: i + 1, entryId: i + 1, message: { role: 'user' as const, content: `message ${i + 1}` } }));
    const chat = new ChatView();
    chat.load(messages as PathMessage[]);
    const lines = chat.render(80).join('\n');
    expect(lines).toContain('50 earlier messages are not drawn here: /transcript shows the whole session');
    expect(lines).not.toContain('message 50\n');
    expect(lines).toContain(`message ${LIMITS.tuiShownMessages + 50}`);
    expect(lines).toContain('#51 ');
    expect(lines).not.toContain('#50 ');
  });

  it('draws the tool lines of every run, also when a later run repeats an earlier run\'s tool-call ids', () => {
    const call = (command: string) => ({ role: 'assistant', content: [{ type: 'toolCall', id: 'call-1', name: 'bash', arguments: { command } }], stopReason: 'toolUse' });
    const result = (text: string) => ({ role: 'toolResult', toolCallId: 'call-1', toolName: 'bash', content: [{ type: 'text', text }], isError: false });
    const path = [call('echo first'), result('first'), call('echo second'), result('second\nline')].map((message, i) => ({ index: i + 1, entryId: i + 1, message }));
    const chat = new ChatView();
    chat.load(path as unknown as PathMessage[]);
    const loaded = chat.render(100).join('\n');
    expect(loaded).toMatch(/✓ .*echo first.*\(1 line/);
    expect(loaded).toMatch(/✓ .*echo second.*\(2 lines/);

    // Live: a third run reuses the id again; its line is drawn and finished on its own.
    chat.toolStart('call-1', 'bash', { command: 'echo third' });
    chat.commitReply(undefined, call('echo third') as never);
    chat.toolEnd('call-1', 'a\nb\nc', true);
    const live = chat.render(100).join('\n');
    expect(live.match(/echo third/g)).toHaveLength(1);
    expect(live).toMatch(/✗.*echo third.*\(3 lines/);
    expect(live).toMatch(/✓ .*echo second.*\(2 lines/);
  });
});

describe('LongText', () => {
  const lines = Array.from({ length: 4000 }, (_, index) => `line ${index} ${'x'.repeat(index % 150)}`);
  const whole = lines.join('\n');

  it('shows a long text with line breaks exactly as one Text would, however its deltas arrived', () => {
    const once = new LongText((text) => text);
    once.append(whole);
    const streamed = new LongText((text) => text);
    for (let at = 0; at < whole.length; at += 37) streamed.append(whole.slice(at, at + 37));
    const expected = new Text(whole, 1, 0).render(100);
    expect(once.render(100)).toEqual(expected);
    expect(streamed.render(100)).toEqual(expected);
  });

  it('keeps every character of a text without line breaks, in pieces', () => {
    const words = Array.from({ length: 20_000 }, (_, index) => `w${index}`).join(' ');
    const view = new LongText((text) => text);
    view.append(words);
    const shown = view.render(80).map((line) => line.trim()).join(' ');
    expect(shown.split(/\s+/)).toEqual(words.split(' '));
  });
});
