/**
 * A command whose stdout fails ends promptly, whatever command it is (issue
 * 24): a reader that went away (`| head`) ends it with status 0, a full disk
 * (`> /dev/full`) with one `xdog:` line and status 1. Through the built CLI
 * against a real gateway holding a session larger than a pipe's buffer.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/cli.js';
import { clawSandbox, connect, startGateway, until, watch, type ClawSandbox, type GatewayProcess } from '../support/claw.js';

/** The bound for exiting once the output failed: generous, not a measurement. */
const EXIT_DEADLINE_MS = 2_000;
/** When a command that should have exited is killed. */
const HANG_DEADLINE_MS = 20_000;

interface ShellRun {
  status: number | null;
  stdout: string;
  stderr: string;
  /** Milliseconds from spawn (or from the first stdout byte) to exit. */
  sinceStart: number;
  sinceOutput: number | undefined;
}

let sandbox: ClawSandbox;
let gateway: GatewayProcess;
let sessionId: string;

/** Runs `xdog ARGS` inside a bash line (`{xdog}` stands for the CLI), killed after HANG_DEADLINE_MS. */
function shell(line: string): Promise<ShellRun> {
  const xdog = `"${process.execPath}" "${path.join(repoRoot, 'bin/run.js')}"`;
  return new Promise((resolve, reject) => {
    const started = Date.now();
    let firstOutput: number | undefined;
    const child = spawn('bash', ['-c', `set -o pipefail; ${line.replaceAll('{xdog}', xdog)}`], {
      cwd: sandbox.root,
      env: { ...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: '1', ...sandbox.env },
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      firstOutput ??= Date.now();
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), HANG_DEADLINE_MS);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      const now = Date.now();
      resolve({ status, stdout, stderr, sinceStart: now - started, sinceOutput: firstOutput === undefined ? undefined : now - firstOutput });
    });
  });
}

describe('a command whose stdout fails', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    sandbox = clawSandbox();
    gateway = await startGateway(sandbox, 60_000);
    const client = await connect(sandbox);
    const { ends } = await watch(client);
    // ~200 KB of reply: more than a pipe holds, so the export is still writing when `head` leaves.
    const receipt = (await client.call('prompt', { text: 'long 30000', idempotencyKey: 'big' })) as { sessionId: string };
    sessionId = receipt.sessionId;
    await until(() => ends.length > 0, 'the long reply');
    await client.close();
  });

  afterAll(async () => {
    await gateway?.stop();
  });

  it('`sessions export | head -c 100` exits at once with status 0', async () => {
    const run = await shell(`{xdog} claw sessions export ${sessionId} | head -c 100`);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toHaveLength(100);
    expect(run.stderr).toBe('');
    // From the moment `head` had its bytes (and left): not the CLI's start-up.
    expect(run.sinceOutput).toBeLessThan(EXIT_DEADLINE_MS);
  });

  it('`sessions export > /dev/full` says so in one line and exits 1', async () => {
    const baseline = await shell(`{xdog} claw sessions export ${sessionId} > /dev/null`);
    expect(baseline.status, baseline.stderr).toBe(0);
    const run = await shell(`{xdog} claw sessions export ${sessionId} > /dev/full`);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^xdog: could not write to stdout: no space left on the device \(ENOSPC\); the output is incomplete \[UNAVAILABLE\] \([^\n]+\)\n$/);
    // As fast as the same export that succeeds, give or take the bound.
    expect(run.sinceStart).toBeLessThan(baseline.sinceStart + EXIT_DEADLINE_MS);
  });

  it('`claw send` streaming a reply to /dev/full, and `claw runs --json | head -c 10`, end the same way', async () => {
    const send = await shell(`{xdog} claw send "long 3000" > /dev/full`);
    expect(send.status).toBe(1);
    expect(send.stderr).toMatch(/^xdog: could not write to stdout: no space left on the device \(ENOSPC\)[^\n]*\n$/);
    const runs = await shell(`{xdog} claw runs --json | head -c 10`);
    expect(runs.status, runs.stderr).toBe(0);
    expect(runs.stdout).toHaveLength(10);
  });
});
