/**
 * A CLI stopped with SIGTERM ends the process groups it started: a bash
 * command still running is not left behind.
 */
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/cli.js';
import { tempDir, writeTree } from '../support/temp.js';

function running(marker: string): boolean {
  return spawnSync('pgrep', ['-f', marker]).status === 0;
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('xdog under SIGTERM', { timeout: 60_000 }, () => {
  it('kills the process group of a running bash tool call on the way out', async () => {
    const marker = `xdog-sigterm-${process.pid}-${Date.now()}`;
    const root = tempDir('xdog-e2e-signal-');
    writeTree(root, {
      'script.json': { responses: [{ toolCalls: [{ name: 'bash', arguments: { command: `exec -a ${marker} sleep 300`, timeout: 300 } }] }, { text: 'never' }] },
    });
    const child = spawn(process.execPath, [path.join(repoRoot, 'bin/run.js'), 'agent', 'chat', 'faux/demo', 'run it'], {
      cwd: root,
      env: { ...process.env, XDG_CONFIG_HOME: path.join(root, 'c'), XDG_DATA_HOME: path.join(root, 'd'), XDOG_FAUX_SCRIPT: path.join(root, 'script.json') },
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await until(() => running(marker), 'the bash command to start');
      child.kill('SIGTERM');
      expect(await exited).toBe(143);
      await until(() => !running(marker), 'the bash command to be killed');
    } finally {
      spawnSync('pkill', ['-KILL', '-f', marker]);
      child.kill('SIGKILL');
    }
  });
});
