/** The file tools as a user meets them: a scripted model calling them through `xdog agent chat`. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { tempDir, writeTree } from '../support/temp.js';

interface LoggedRequest {
  messages: Array<{ role: string; toolName?: string; content: Array<{ type: string; text?: string }>; isError?: boolean }>;
}

/** Runs one chat whose model answers with `responses`, in a fresh workspace holding `files`. */
function chat(files: Record<string, string>, responses: unknown[], prepare?: (cwd: string) => void) {
  const root = tempDir('xdog-e2e-files-');
  writeTree(root, { 'script.json': { responses }, 'work/.keep': '', ...Object.fromEntries(Object.entries(files).map(([name, content]) => [`work/${name}`, content])) });
  const log = path.join(root, 'requests.jsonl');
  const cwd = path.join(root, 'work');
  prepare?.(cwd);
  const env = { XDG_CONFIG_HOME: path.join(root, 'config'), XDG_DATA_HOME: path.join(root, 'data'), XDOG_FAUX_SCRIPT: path.join(root, 'script.json'), XDOG_FAUX_LOG: log };
  const result = runCli(['agent', 'chat', 'faux/demo', 'go', '--cwd', cwd], { env, cwd });
  const requests = fs.readFileSync(log, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as LoggedRequest);
  const toolResults = requests.at(-1)!.messages.filter((message) => message.role === 'toolResult');
  return { result, cwd, toolResults, read: (name: string) => fs.readFileSync(path.join(cwd, name), 'utf8') };
}

describe('file tools through xdog agent chat', { timeout: 120_000 }, () => {
  it('three edits of one file in one turn all land, and each reports success', () => {
    const { result, read, toolResults } = chat({ 'a.txt': 'one\ntwo\nthree\n' }, [
      {
        toolCalls: [
          { name: 'edit', arguments: { path: 'a.txt', old_text: 'one', new_text: 'ONE' } },
          { name: 'edit', arguments: { path: 'a.txt', old_text: 'two', new_text: 'TWO' } },
          { name: 'edit', arguments: { path: 'a.txt', old_text: 'three', new_text: 'THREE' } },
        ],
      },
      { text: 'done' },
    ]);
    expect(result.status).toBe(0);
    expect(toolResults.map((message) => message.isError)).toEqual([false, false, false]);
    expect(read('a.txt')).toBe('ONE\nTWO\nTHREE\n');
  });

  it('write then edit of a new file in one turn runs in call order', () => {
    const { result, read, toolResults } = chat({}, [
      {
        toolCalls: [
          { name: 'write', arguments: { path: 'src/new.txt', content: 'hello world\n' } },
          { name: 'edit', arguments: { path: 'src/new.txt', old_text: 'world', new_text: 'there' } },
        ],
      },
      { text: 'done' },
    ]);
    expect(result.status).toBe(0);
    expect(toolResults.map((message) => [message.toolName, message.isError])).toEqual([
      ['write', false],
      ['edit', false],
    ]);
    expect(read('src/new.txt')).toBe('hello there\n');
  });

  it('answers bad paths and globs in the model\'s terms, and says which symbolic links were not followed', () => {
    const root = tempDir('xdog-e2e-outside-');
    writeTree(root, { 'secret.txt': 'needle outside\n' });
    const responses = [
      {
        toolCalls: [
          { name: 'write', arguments: { path: 'a.txt/b.txt', content: 'x' } },
          { name: 'find', arguments: { pattern: '{a,b.txt' } },
          { name: 'grep', arguments: { pattern: 'needle', glob: '*.{md' } },
          { name: 'find', arguments: { pattern: '*.txt' } },
          { name: 'grep', arguments: { pattern: 'needle' } },
        ],
      },
      { text: 'done' },
    ];
    const files = { 'a.txt': 'needle inside\n' };
    const setupLinks = (cwd: string) => fs.symlinkSync(path.join(root, 'secret.txt'), path.join(cwd, 'link.txt'));
    const { result, toolResults } = chat(files, responses, setupLinks);
    expect(result.status).toBe(0);
    const texts = toolResults.map((message) => message.content[0]!.text);
    expect(texts[0]).toBe('Error: cannot write a.txt/b.txt: a.txt is a file, not a folder');
    expect(texts[1]).toBe('Error: invalid glob "{a,b.txt": a "{" is not closed with "}"');
    expect(texts[2]).toBe('Error: invalid glob "*.{md": a "{" is not closed with "}"');
    expect(texts[3]).toBe("a.txt\n[1 symbolic link was not followed: link.txt; give the link's target as path to search it]");
    expect(texts[4]).toBe("a.txt:1: needle inside\n[1 symbolic link was not followed: link.txt; give the link's target as path to search it]");
  });

  it('bash runs a command up to the argument limit and refuses a longer one with the limit, not E2BIG', () => {
    const atLimit = `echo ok #${'x'.repeat(128 * 1024 - 1 - 'echo ok #'.length)}`;
    const over = `echo no #${'x'.repeat(200 * 1024)}`;
    const { result, toolResults } = chat({}, [{ toolCalls: [{ name: 'bash', arguments: { command: atLimit } }, { name: 'bash', arguments: { command: over } }] }, { text: 'done' }]);
    expect(result.status).toBe(0);
    expect(toolResults[0]).toMatchObject({ isError: false, content: [{ text: 'ok\n' }] });
    expect(toolResults[1]!.isError).toBe(true);
    expect(toolResults[1]!.content[0]!.text).toContain('command: the command is over 131071 bytes, the limit for one command; write the script to a file with the write tool and run it with bash FILE');
  });
});
