/**
 * A hostile model through `xdog agent chat`: one scripted turn of tool calls
 * aimed at every way a read, a pattern or a process can hang or grow without
 * bound (a FIFO, /dev/zero, a huge line, catastrophic patterns, background
 * processes holding stdout, a write over the limit, many parallel writes).
 * Checked: the run ends before a generous deadline, the process's peak memory
 * stays bounded, each call gets an answer, and the workspace holds exactly
 * the changes that were acknowledged.
 */
import { execFileSync, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../core/index.js';
import { repoRoot, runCli } from '../support/cli.js';
import { tempDir } from '../support/temp.js';

const MiB = 1024 * 1024;
/** Far beyond a healthy run on a loaded machine; a hang or a blocked SIGTERM runs into it. */
const DEADLINE_MS = 120_000;
/** Peak resident memory allowed; an unbounded read of /dev/zero or a FIFO blows far past it. */
const PEAK_RSS_BYTES = 768 * MiB;
const PARALLEL_WRITES = 24;

const root = tempDir('xdog-e2e-hostile-');
const work = path.join(root, 'work');
const strays: string[] = [];
afterAll(() => {
  for (const file of strays.filter((candidate) => fs.existsSync(candidate))) {
    try {
      process.kill(Number(fs.readFileSync(file, 'utf8').trim()), 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

/** Every file under `dir` with a hash of its content (FIFOs and links by kind). */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const visit = (relative: string): void => {
    for (const entry of fs.readdirSync(path.join(dir, relative), { withFileTypes: true })) {
      const child = path.join(relative, entry.name);
      if (entry.isDirectory()) visit(child);
      else if (entry.isSymbolicLink()) out[child] = `link:${fs.readlinkSync(path.join(dir, child))}`;
      else if (entry.isFIFO()) out[child] = 'fifo';
      else out[child] = crypto.createHash('sha256').update(fs.readFileSync(path.join(dir, child))).digest('hex');
    }
  };
  visit('');
  return out;
}

function hostileCalls(): Array<{ id: string; name: string; arguments: Record<string, unknown> }> {
  const setsidPid = path.join(root, 'setsid.pid');
  strays.push(setsidPid, path.join(root, 'background.pid'));
  const calls = [
    { id: 'read-fifo', name: 'read', arguments: { path: 'pipe' } },
    { id: 'read-zero', name: 'read', arguments: { path: 'zero.txt' } },
    { id: 'read-dev-zero-image', name: 'read', arguments: { path: 'zero.png' } },
    { id: 'read-huge-line', name: 'read', arguments: { path: 'huge-line.txt' } },
    { id: 'grep-fifo', name: 'grep', arguments: { pattern: 'x', path: 'pipe' } },
    { id: 'grep-catastrophic', name: 'grep', arguments: { pattern: '(a+)+$' } },
    { id: 'find-catastrophic', name: 'find', arguments: { pattern: `${'*a'.repeat(14)}*b` } },
    { id: 'edit-fifo', name: 'edit', arguments: { path: 'pipe', old_text: 'a', new_text: 'b' } },
    { id: 'write-fifo', name: 'write', arguments: { path: 'pipe', content: 'x' } },
    { id: 'write-too-big', name: 'write', arguments: { path: 'too-big.txt', content: 'y'.repeat(LIMITS.fileToolFileBytes + 1) } },
    { id: 'bash-background', name: 'bash', arguments: { command: `sleep 600 & echo $! > ${root}/background.pid; echo started` } },
    { id: 'bash-setsid-timeout', name: 'bash', arguments: { command: `setsid sh -c 'echo $$ > ${setsidPid}; exec sleep 600' & sleep 600`, timeout: 1 } },
    { id: 'bash-flood', name: 'bash', arguments: { command: 'head -c 50000000 /dev/zero | tr "\\0" x' } },
  ];
  for (let i = 0; i < PARALLEL_WRITES; i++) calls.push({ id: `write-${i}`, name: 'write', arguments: { path: `out/${i}.txt`, content: `file ${i}\n` } });
  return calls;
}

describe('a hostile model through xdog agent chat', { timeout: DEADLINE_MS + 60_000 }, () => {
  it('ends before its deadline with bounded memory, answers every call, and changes exactly what it acknowledged', async () => {
    fs.mkdirSync(work);
    execFileSync('mkfifo', [path.join(work, 'pipe')]);
    fs.symlinkSync('/dev/zero', path.join(work, 'zero.txt'));
    fs.symlinkSync('/dev/zero', path.join(work, 'zero.png'));
    fs.writeFileSync(path.join(work, 'evil.txt'), `${'a'.repeat(200_000)}!\n`);
    fs.writeFileSync(path.join(work, 'a'.repeat(200)), '');
    fs.writeFileSync(path.join(work, 'huge-line.txt'), 'z'.repeat(LIMITS.fileToolFileBytes + MiB));
    const before = snapshot(work);

    const calls = hostileCalls();
    const results = path.join(root, 'results.json');
    const script = path.join(root, 'hostile.mjs');
    fs.writeFileSync(
      script,
      `import fs from 'node:fs';
const calls = ${JSON.stringify(calls)};
export default function respond(request) {
  const results = request.messages.filter((message) => message.role === 'toolResult');
  if (results.length === 0) return { toolCalls: calls };
  const brief = results.map((r) => ({ id: r.toolCallId, isError: r.isError, text: r.content.map((p) => p.text ?? '').join('\\n').slice(0, 400) }));
  fs.writeFileSync(${JSON.stringify(results)}, JSON.stringify(brief));
  return { text: 'survived' };
}
`,
    );

    const child = spawn(process.execPath, [path.join(repoRoot, 'bin/run.js'), 'agent', 'chat', 'faux/hostile', 'do your worst', '--cwd', work], {
      cwd: work,
      env: { ...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: '1', XDG_CONFIG_HOME: path.join(root, 'c'), XDG_DATA_HOME: path.join(root, 'd'), XDOG_FAUX_SCRIPT: script },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    // Peak resident memory, from the kernel's own high-water mark, sampled until exit.
    let peakRss = 0;
    const sampler = setInterval(() => {
      try {
        const hwm = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (hwm) peakRss = Math.max(peakRss, Number(hwm[1]) * 1024);
      } catch {
        // exited
      }
    }, 20);
    let timedOut = false;
    const deadline = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, DEADLINE_MS);
    const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearTimeout(deadline);
    clearInterval(sampler);

    expect(timedOut).toBe(false);
    expect(stderr).not.toMatch(/INTERNAL|EAGAIN/);
    expect(status).toBe(0);
    expect(stdout).toBe('survived\n');
    expect(peakRss).toBeGreaterThan(0);
    expect(peakRss).toBeLessThan(PEAK_RSS_BYTES);

    const answers = new Map((JSON.parse(fs.readFileSync(results, 'utf8')) as Array<{ id: string; isError: boolean; text: string }>).map((answer) => [answer.id, answer]));
    expect([...answers.keys()].sort()).toEqual(calls.map((call) => call.id).sort());
    const expectError = (id: string, text: string | RegExp): void => {
      expect(answers.get(id), id).toMatchObject({ isError: true, text: typeof text === 'string' ? expect.stringContaining(text) : expect.stringMatching(text) });
    };
    expectError('read-fifo', 'is a FIFO (named pipe), not a regular file');
    expectError('read-zero', 'is a character device, not a regular file');
    expectError('read-dev-zero-image', 'is a character device, not a regular file');
    expectError('read-huge-line', `over the limit of ${LIMITS.fileToolFileBytes} bytes`);
    expectError('grep-fifo', 'is a FIFO (named pipe), not a regular file');
    expect(answers.get('grep-catastrophic')).toMatchObject({ isError: false, text: expect.stringContaining('no matches for (a+)+$') });
    expect(answers.get('grep-catastrophic')!.text).toContain('FIFOs, sockets or devices were skipped');
    expect(answers.get('find-catastrophic')).toMatchObject({ isError: false, text: expect.stringContaining('no files match') });
    expectError('edit-fifo', 'FIFO');
    expectError('write-fifo', 'FIFO');
    expectError('write-too-big', `over the ${LIMITS.fileToolFileBytes}-byte limit`);
    expect(answers.get('bash-background')).toMatchObject({ isError: false, text: expect.stringMatching(/^started\n\[background processes still held the output open/) });
    expectError('bash-setsid-timeout', 'command timed out after 1s');
    expect(answers.get('bash-flood')).toMatchObject({ isError: false, text: expect.stringContaining('[output truncated: the first') });
    for (let i = 0; i < PARALLEL_WRITES; i++) expect(answers.get(`write-${i}`)).toMatchObject({ isError: false, text: `wrote ${`file ${i}\n`.length} bytes to out/${i}.txt` });

    // Exactly the acknowledged changes: the parallel writes, nothing else touched or created.
    const expected = { ...before };
    for (let i = 0; i < PARALLEL_WRITES; i++) expected[path.join('out', `${i}.txt`)] = crypto.createHash('sha256').update(`file ${i}\n`).digest('hex');
    expect(snapshot(work)).toEqual(expected);
  });

  it('refuses a FIFO or a device wherever the CLI takes a file, instead of blocking', () => {
    const dir = tempDir('xdog-e2e-hostile-cli-');
    const pipe = path.join(dir, 'pipe');
    execFileSync('mkfifo', [pipe]);
    const env = { XDG_CONFIG_HOME: path.join(dir, 'c'), XDG_DATA_HOME: path.join(dir, 'd'), XDOG_FAUX_SCRIPT: pipe };
    const cases: Array<[string[], NodeJS.ProcessEnv, RegExp]> = [
      [['agent', 'chat', 'faux/demo', 'hi', '--no-tools', '--config', '/dev/zero'], env, /config file \/dev\/zero is a character device, not a regular file \[CONFIG_INVALID\]/],
      [['agent', 'chat', 'faux/demo', 'hi', '--no-tools', '--tool-ctx', `@${pipe}`], env, /--tool-ctx file .*pipe is a FIFO \(named pipe\), not a regular file \[USAGE\]/],
      [['agent', 'chat', 'faux/demo', 'hi', '--no-tools'], env, /faux script .*pipe is a FIFO \(named pipe\), not a regular file/],
      [['flow', 'validate', pipe], env, /flow file .*pipe is a FIFO \(named pipe\), not a regular file/],
    ];
    for (const [args, caseEnv, message] of cases) {
      const result = runCli(args, { env: caseEnv, cwd: dir });
      expect(result.stderr, args.join(' ')).toMatch(message);
      expect(result.status, args.join(' ')).not.toBe(0);
    }
  });
});
