import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LIMITS, createKernel, ToolContribution, type AgentTool, type AgentToolResult } from '../../../core/index.js';
import toolsPlugin, {
  SearxngBackend,
  createBashTool,
  createBuiltinTools,
  createCurrentTimeTool,
  createEditTool,
  createWebSearchTool,
  compileGlob,
} from '../../../plugins/tools/index.js';

let cwd: string;
beforeEach(() => {
  cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'xdog-tools-'));
});
afterEach(() => fs.rmSync(cwd, { recursive: true, force: true }));

function run(tool: AgentTool, args: Record<string, unknown>, signal = new AbortController().signal): Promise<AgentToolResult> {
  return tool.execute(args, { toolCallId: 't1', signal, onUpdate: () => {}, toolCtx: {} });
}
const text = (result: AgentToolResult): string => result.content.map((part) => (part.type === 'text' ? part.text : `[${part.mimeType}]`)).join('\n');
const tool = (name: string): AgentTool => createBuiltinTools({ cwd }).find((candidate) => candidate.name === name)!;

/** True while the process exists and is not a zombie. */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
async function until(condition: () => boolean): Promise<boolean> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 25));
  return condition();
}

describe('bash', () => {
  it('runs in the working directory and returns combined output', async () => {
    const result = await run(tool('bash'), { command: 'pwd; echo out; echo err >&2' });
    expect(result.isError).toBeUndefined();
    expect(text(result)).toBe(`${fs.realpathSync(cwd)}\nout\nerr\n`);
  });

  it('reports a non-zero exit as an error with the output', async () => {
    const result = await run(tool('bash'), { command: 'echo nope; exit 3' });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe('Error: command exited with code 3\nnope\n');
  });

  it('kills a running command\'s process group when the host process dies', async () => {
    // A host that crashes (uncaught exception) mid-command: the detached group must not outlive it.
    const pidFile = path.join(cwd, 'command.pid');
    const entry = path.resolve('dist/plugins/tools/index.js');
    const script = [
      `import fs from 'node:fs';`,
      `const { createBashTool } = await import(${JSON.stringify(entry)});`,
      `const tool = createBashTool({ cwd: ${JSON.stringify(cwd)} });`,
      `void tool.execute({ command: 'echo $$ > ${pidFile}; exec sleep 300' }, { toolCallId: 't', signal: new AbortController().signal, onUpdate() {}, toolCtx: {} });`,
      `const wait = () => (fs.existsSync(${JSON.stringify(pidFile)}) && fs.readFileSync(${JSON.stringify(pidFile)}, 'utf8').trim() ? (() => { throw new Error('host crashed'); })() : setTimeout(wait, 20));`,
      `wait();`,
    ].join('\n');
    const host = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'ignore' });
    const code = await new Promise<number | null>((resolve) => host.on('exit', resolve));
    expect(code).not.toBe(0);
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    expect(await until(() => !alive(pid))).toBe(true);
  });

  it('kills the whole process group at the timeout', async () => {
    const pidFile = path.join(cwd, 'child.pid');
    const result = await run(tool('bash'), { command: `sleep 60 & echo $! > ${pidFile}; wait`, timeout: 0.5 });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/^Error: command timed out after 0.5s; its process group was killed/);
    expect(result.details).toMatchObject({ timedOut: true });
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    expect(await until(() => !alive(pid))).toBe(true);
  });

  it('kills the whole process group on abort', async () => {
    const pidFile = path.join(cwd, 'child.pid');
    const controller = new AbortController();
    const pending = run(tool('bash'), { command: `sleep 60 & echo $! > ${pidFile}; wait` }, controller.signal);
    expect(await until(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim() !== '')).toBe(true);
    controller.abort();
    const result = await pending;
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/command aborted; its process group was killed/);
    expect(await until(() => !alive(Number(fs.readFileSync(pidFile, 'utf8'))))).toBe(true);
  });

  it('keeps the end of long output and says how much was cut', async () => {
    const total = LIMITS.bashOutputBytes + 5000;
    const result = await run(createBashTool({ cwd }), { command: `head -c ${total - 4} /dev/zero | tr '\\0' a; echo END` });
    const output = text(result);
    expect(output).toMatch(/^\[output truncated: the first 5000 bytes were cut; only the last 65536 bytes are shown\]\n/);
    expect(output.endsWith('aEND\n')).toBe(true);
    expect(result.details).toMatchObject({ droppedBytes: 5000 });
  });
});

describe('edit', () => {
  it('replaces one exact, unique occurrence', async () => {
    fs.writeFileSync(path.join(cwd, 'a.txt'), 'one\ntwo\nthree\n');
    const result = await run(createEditTool({ cwd }), { path: 'a.txt', old_text: 'two', new_text: 'TWO' });
    expect(text(result)).toBe('edited a.txt at line 2');
    expect(fs.readFileSync(path.join(cwd, 'a.txt'), 'utf8')).toBe('one\nTWO\nthree\n');
  });

  it('refuses a file that is not UTF-8 instead of rewriting its other bytes', async () => {
    // "café" in Latin-1: decoding as UTF-8 would turn 0xE9 into U+FFFD and write that back.
    const original = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a, 0x68, 0x69, 0x0a]);
    fs.writeFileSync(path.join(cwd, 'latin1.txt'), original);
    const result = await run(createEditTool({ cwd }), { path: 'latin1.txt', old_text: 'hi', new_text: 'bye' });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/^Error: latin1.txt is not valid UTF-8/);
    expect(fs.readFileSync(path.join(cwd, 'latin1.txt'))).toEqual(original);
  });

  it('refuses an edit whose result would be over the file limit, as write does', async () => {
    const original = `MARK\n${'a'.repeat(LIMITS.fileToolFileBytes - 10)}`;
    fs.writeFileSync(path.join(cwd, 'big.txt'), original);
    const result = await run(createEditTool({ cwd }), { path: 'big.txt', old_text: 'MARK', new_text: 'M'.repeat(100) });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(new RegExp(`over the ${LIMITS.fileToolFileBytes}-byte limit`));
    expect(fs.statSync(path.join(cwd, 'big.txt')).size).toBe(original.length);
  });

  it('fails when the text is not found, leaving the file alone', async () => {
    fs.writeFileSync(path.join(cwd, 'a.txt'), 'one\n');
    const result = await run(createEditTool({ cwd }), { path: 'a.txt', old_text: 'zero', new_text: 'x' });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe('Error: old_text was not found in a.txt; read the file and copy the text exactly');
    expect(fs.readFileSync(path.join(cwd, 'a.txt'), 'utf8')).toBe('one\n');
  });

  it('fails when the text is not unique, leaving the file alone', async () => {
    fs.writeFileSync(path.join(cwd, 'a.txt'), 'x = 1\nx = 1\n');
    const result = await run(createEditTool({ cwd }), { path: 'a.txt', old_text: 'x = 1', new_text: 'x = 2' });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe('Error: old_text occurs 2 times in a.txt; include more surrounding text so it occurs once');
    expect(fs.readFileSync(path.join(cwd, 'a.txt'), 'utf8')).toBe('x = 1\nx = 1\n');
  });
});

describe('parallel mutations of one file', () => {
  it('keeps every edit when several run at once, through any spelling of the path', async () => {
    fs.writeFileSync(path.join(cwd, 'a.txt'), 'alpha\nbeta\ngamma\ndelta\n');
    fs.symlinkSync('a.txt', path.join(cwd, 'link.txt'));
    const tools = createBuiltinTools({ cwd });
    const edit = tools.find((candidate) => candidate.name === 'edit')!;
    const results = await Promise.all([
      run(edit, { path: 'a.txt', old_text: 'alpha', new_text: 'ALPHA' }),
      run(edit, { path: './a.txt', old_text: 'beta', new_text: 'BETA' }),
      run(createEditTool({ cwd }), { path: path.join(cwd, 'a.txt'), old_text: 'gamma', new_text: 'GAMMA' }),
      run(edit, { path: 'link.txt', old_text: 'delta', new_text: 'DELTA' }),
    ]);
    expect(results.filter((result) => result.isError).map(text)).toEqual([]);
    expect(fs.readFileSync(path.join(cwd, 'a.txt'), 'utf8')).toBe('ALPHA\nBETA\nGAMMA\nDELTA\n');
  });

  it('runs write then edit of a new file in call order', async () => {
    const [written, edited] = await Promise.all([
      run(tool('write'), { path: 'new/b.txt', content: 'hello world\n' }),
      run(tool('edit'), { path: 'new/b.txt', old_text: 'world', new_text: 'there' }),
    ]);
    expect([written, edited].filter((result) => result.isError).map(text)).toEqual([]);
    expect(fs.readFileSync(path.join(cwd, 'new/b.txt'), 'utf8')).toBe('hello there\n');
  });

  it('a queued edit whose run is aborted never starts', async () => {
    fs.writeFileSync(path.join(cwd, 'a.txt'), 'one\n');
    const controller = new AbortController();
    const first = run(tool('write'), { path: 'a.txt', content: 'two\n' });
    const second = run(tool('edit'), { path: 'a.txt', old_text: 'two', new_text: 'three' }, controller.signal);
    controller.abort(new Error('stopped'));
    await first;
    await expect(second).rejects.toThrow('stopped');
    expect(fs.readFileSync(path.join(cwd, 'a.txt'), 'utf8')).toBe('two\n');
  });
});

describe('file and search tools', () => {
  beforeEach(() => {
    fs.mkdirSync(path.join(cwd, 'src/deep'), { recursive: true });
    fs.mkdirSync(path.join(cwd, 'node_modules/pkg'), { recursive: true });
    fs.mkdirSync(path.join(cwd, '.git'));
    fs.writeFileSync(path.join(cwd, 'src/a.ts'), 'export const a = 1;\n// TODO: more\n');
    fs.writeFileSync(path.join(cwd, 'src/deep/b.ts'), 'export const b = 2; // todo later\n');
    fs.writeFileSync(path.join(cwd, 'node_modules/pkg/index.ts'), '// TODO vendored\n');
    fs.writeFileSync(path.join(cwd, '.git/config'), 'TODO');
    fs.writeFileSync(path.join(cwd, 'README.md'), Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n'));
  });

  it('write creates parents and read numbers lines and pages', async () => {
    expect(text(await run(tool('write'), { path: 'new/dir/f.txt', content: 'hello\nworld\n' }))).toBe('wrote 12 bytes to new/dir/f.txt');
    expect(text(await run(tool('read'), { path: 'new/dir/f.txt' }))).toBe('1\thello\n2\tworld');
    expect(text(await run(tool('read'), { path: 'README.md', offset: 29 }))).toBe('29\tline 29\n30\tline 30');
    expect(text(await run(tool('read'), { path: 'README.md', limit: 2 }))).toBe('1\tline 1\n2\tline 2\n[28 more lines; continue with offset 3]');
    expect(text(await run(tool('read'), { path: 'missing.txt' }))).toBe('Error: missing.txt: no such file or directory');
  });

  it('ls sorts, marks folders and hides .git and node_modules by default', async () => {
    expect(text(await run(tool('ls'), {}))).toBe('README.md\nsrc/');
    expect(text(await run(tool('ls'), { all: true }))).toBe('.git/\nREADME.md\nnode_modules/\nsrc/');
  });

  it('find matches globs relative to the folder, skipping ignored folders', async () => {
    expect(text(await run(tool('find'), { pattern: '*.ts' }))).toBe('src/a.ts\nsrc/deep/b.ts');
    expect(text(await run(tool('find'), { pattern: 'src/**/*.ts' }))).toBe('src/a.ts\nsrc/deep/b.ts');
    expect(text(await run(tool('find'), { pattern: '*.ts', all: true }))).toContain('node_modules/pkg/index.ts');
    expect(text(await run(tool('find'), { pattern: '*.py' }))).toBe('no files match *.py');
  });

  it('grep finds lines with file and line numbers, skipping ignored folders', async () => {
    expect(text(await run(tool('grep'), { pattern: 'TODO' }))).toBe('src/a.ts:2: // TODO: more');
    expect(text(await run(tool('grep'), { pattern: 'todo', ignore_case: true, glob: '*.ts' }))).toBe('src/a.ts:2: // TODO: more\nsrc/deep/b.ts:1: export const b = 2; // todo later');
    expect(text(await run(tool('grep'), { pattern: '(' }))).toMatch(/^Error: invalid regular expression/);
  });

  it('globs: ** spans folders, * stays in one, braces alternate', () => {
    expect(compileGlob('src/**/*.ts').test('src/x/y/z.ts')).toBe(true);
    expect(compileGlob('src/*.ts').test('src/x/z.ts')).toBe(false);
    expect(compileGlob('{README,CHANGELOG}.md').test('docs/CHANGELOG.md')).toBe(true);
  });
});

describe('current_time and web_search', () => {
  it('current_time reads the clock in the asked zone', async () => {
    const result = await run(createCurrentTimeTool({ clock: { now: () => Date.UTC(2026, 0, 2, 3, 4, 5) } }), { timezone: 'UTC' });
    expect(text(result)).toBe('Friday, January 2, 2026 at 3:04:05 AM UTC (UTC); ISO 2026-01-02T03:04:05.000Z');
    expect((await run(createCurrentTimeTool(), { timezone: 'Nowhere/Else' })).isError).toBe(true);
  });

  it('web_search asks a SearXNG JSON endpoint and formats the hits', async () => {
    const seen: string[] = [];
    const server = http.createServer((req, res) => {
      seen.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ results: [{ title: 'Node.js', url: 'https://nodejs.org/', content: 'JavaScript runtime' }, { title: 'npm', url: 'https://npmjs.com/', content: 'registry' }] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const backend = new SearxngBackend({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
      const result = await run(createWebSearchTool(backend), { query: 'node js', count: 1 });
      expect(text(result)).toBe('1. Node.js\n   https://nodejs.org/\n   JavaScript runtime');
      expect(seen).toEqual(['/search?q=node+js&format=json']);
    } finally {
      server.close();
    }
  });

  it('web_search stops reading a response without a length once it passes the byte limit', async () => {
    // An endless chunked body: the tool must give up at the bound, not buffer it all first.
    let disconnected!: () => void;
    const gone = new Promise<void>((resolve) => (disconnected = resolve));
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const pump = (): void => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      res.on('close', () => disconnected());
      pump();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const backend = new SearxngBackend({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
      const result = await run(createWebSearchTool(backend), { query: 'endless' });
      expect(result.isError).toBe(true);
      expect(text(result)).toContain(`over the ${LIMITS.webSearchResponseBytes}-byte limit`);
      await gone;
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('web_search fails with the variable to set when api_key_env names an unset one, sending nothing', async () => {
    const seen: string[] = [];
    const server = http.createServer((req, res) => {
      seen.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"results":[]}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const config = { web_search: { backend: 'searxng' as const, url, api_key_env: 'XDOG_TEST_UNSET_SEARCH_TOKEN' } };
      const kernel = await createKernel({ plugins: [toolsPlugin], config, cwd });
      const search = kernel.getAll(ToolContribution).find((candidate) => candidate.name === 'web_search')!;
      const result = await run(search, { query: 'x' });
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/XDOG_TEST_UNSET_SEARCH_TOKEN, which is not set/);
      expect(seen).toEqual([]);
    } finally {
      server.close();
    }
  });

  it('web_search never shows its API key in an error, even one fetch builds from a malformed key', async () => {
    const backend = new SearxngBackend({ url: 'http://127.0.0.1:9', apiKeyEnv: 'SEARCH_KEY', env: { SEARCH_KEY: 'sk-search\nsecret-tail' } });
    const result = await run(createWebSearchTool(backend), { query: 'x' });
    expect(result.isError).toBe(true);
    expect(text(result)).not.toContain('secret-tail');
    expect(text(result)).not.toContain('sk-search');
  });

  it('the plugin contributes web_search only when the config names a backend', async () => {
    const names = async (config = {}) => (await createKernel({ plugins: [toolsPlugin], config, cwd })).getAll(ToolContribution).map((t) => t.name);
    expect(await names()).toEqual(['bash', 'read', 'write', 'edit', 'ls', 'grep', 'find', 'current_time']);
    expect(await names({ web_search: { backend: 'searxng', url: 'http://127.0.0.1:1' } })).toContain('web_search');
  });
});
