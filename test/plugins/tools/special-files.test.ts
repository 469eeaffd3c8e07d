/** FIFOs, devices and links to them: every file and search tool refuses or skips them instead of blocking or reading without end. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentTool, AgentToolResult } from '../../../core/index.js';
import { createBuiltinTools } from '../../../plugins/tools/index.js';

let cwd: string;
beforeEach(() => {
  cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'xdog-special-'));
  execFileSync('mkfifo', [path.join(cwd, 'pipe')]);
  fs.symlinkSync('/dev/zero', path.join(cwd, 'zero.png'));
  fs.symlinkSync('/dev/zero', path.join(cwd, 'zero.txt'));
  fs.writeFileSync(path.join(cwd, 'notes.txt'), 'needle\n');
});
afterEach(() => fs.rmSync(cwd, { recursive: true, force: true }));

const tool = (name: string): AgentTool => createBuiltinTools({ cwd }).find((candidate) => candidate.name === name)!;
const run = (name: string, args: Record<string, unknown>): Promise<AgentToolResult> =>
  tool(name).execute(args, { toolCallId: 't1', signal: new AbortController().signal, onUpdate: () => {}, toolCtx: {} });
const text = (result: AgentToolResult): string => result.content.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('\n');

describe('file tools on non-regular files', () => {
  it('read refuses a FIFO, a link to /dev/zero and a device image', async () => {
    for (const [file, kind] of [['pipe', 'FIFO (named pipe)'], ['zero.txt', 'character device'], ['zero.png', 'character device'], ['/dev/zero', 'character device']]) {
      const result = await run('read', { path: file });
      expect(result.isError).toBe(true);
      expect(text(result)).toContain(`is a ${kind}, not a regular file`);
    }
  });

  it('edit and write refuse a FIFO, leaving it a FIFO', async () => {
    expect(text(await run('edit', { path: 'pipe', old_text: 'a', new_text: 'b' }))).toContain('FIFO');
    const write = await run('write', { path: 'pipe', content: 'x' });
    expect(write.isError).toBe(true);
    expect(text(write)).toContain('is a FIFO (named pipe), not a regular file');
    expect(fs.statSync(path.join(cwd, 'pipe')).isFIFO()).toBe(true);
  });

  it('grep refuses a FIFO it is pointed at and skips one in a walk with a notice', async () => {
    expect(text(await run('grep', { pattern: 'x', path: 'pipe' }))).toContain('is a FIFO (named pipe), not a regular file');
    const walk = text(await run('grep', { pattern: 'needle' }));
    expect(walk).toContain('notes.txt:1: needle');
    expect(walk).toContain('[1 FIFOs, sockets or devices were skipped; only regular files are searched]');
  });

  it('find lists regular files only and says what it skipped', async () => {
    const found = text(await run('find', { pattern: '*' }));
    expect(found.split('\n')).toContain('notes.txt');
    expect(found).not.toMatch(/^pipe$/m);
    expect(found).toContain('[1 FIFOs, sockets or devices were skipped');
  });
});
