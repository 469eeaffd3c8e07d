/** Model-written patterns cannot pin the event loop: grep and find match in linear time. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compileLinearRegex, type AgentTool, type AgentToolResult } from '../../../core/index.js';
import { compileGlob, createBuiltinTools } from '../../../plugins/tools/index.js';

let cwd: string;
beforeEach(() => {
  cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'xdog-linear-'));
});
afterEach(() => fs.rmSync(cwd, { recursive: true, force: true }));

const tool = (name: string): AgentTool => createBuiltinTools({ cwd }).find((candidate) => candidate.name === name)!;
const run = (name: string, args: Record<string, unknown>): Promise<AgentToolResult> =>
  tool(name).execute(args, { toolCallId: 't1', signal: new AbortController().signal, onUpdate: () => {}, toolCtx: {} });
const text = (result: AgentToolResult): string => result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');

// With a backtracking engine each of these runs for longer than the universe has existed.
describe('catastrophic patterns', () => {
  it('grep answers a nested-quantifier pattern on a long line', async () => {
    fs.writeFileSync(path.join(cwd, 'evil.txt'), `${'a'.repeat(100_000)}b\n`);
    expect(text(await run('grep', { pattern: '(a+)+$' }))).toBe('no matches for (a+)+$');
    expect(text(await run('grep', { pattern: '(a+)+b' }))).toBe(`evil.txt:1: ${'a'.repeat(2000)}… [line cut: 98001 more characters]`);
    expect(text(await run('grep', { pattern: '^(a|aa)+$' }))).toBe('no matches for ^(a|aa)+$');
  });

  it('find answers a many-star glob against a long name', async () => {
    fs.writeFileSync(path.join(cwd, 'a'.repeat(200)), '');
    expect(text(await run('find', { pattern: `${'*a'.repeat(12)}*b` }))).toBe(`no files match ${'*a'.repeat(12)}*b`);
    expect(compileGlob('*a*a*a*a*a*a*a*a*a*a*a*a*b').test(`x/${'a'.repeat(5000)}`)).toBe(false);
  });

  it('keeps the syntax models use, and says what is unsupported', async () => {
    expect(compileLinearRegex('function \\w+\\(', { ignoreCase: true }).test('FUNCTION foo(')).toBe(true);
    expect(compileLinearRegex('(?<word>\\d{2,3})/x').test('a 123/x')).toBe(true);
    expect(text(await run('grep', { pattern: 'foo(?=bar)' }))).toMatch(/^Error: invalid regular expression: .*lookaround and backreferences are not supported/);
    expect(text(await run('find', { pattern: '{a,b' }))).toBe('Error: invalid glob "{a,b": a "{" is not closed with "}"');
  });
});
