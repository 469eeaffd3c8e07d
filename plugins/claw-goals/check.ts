/**
 * A goal's check command: run by bash in the group's workspace when the model
 * says the goal is met. Bounded in time (LIMITS.goalCheckTimeoutMs) and
 * output (LIMITS.goalCheckOutputBytes); past either bound the process group
 * is killed and the check fails, saying which bound it passed.
 */
import { spawn } from 'node:child_process';
import { LIMITS } from '../../core/limits.js';
import { signalProcessGroup } from '../../core/process-group.js';

export interface CheckOutcome {
  passed: boolean;
  /** The exit code; null when the command was killed or did not start. */
  exitCode: number | null;
  /** Its output (stdout and stderr, interleaved), at most the limit. */
  output: string;
  /** Why it failed, for the model and people; absent when it passed. */
  problem?: string;
}

export function runGoalCheck(command: string, cwd: string, limits: { timeoutMs: number; outputBytes: number } = { timeoutMs: LIMITS.goalCheckTimeoutMs, outputBytes: LIMITS.goalCheckOutputBytes }): Promise<CheckOutcome> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let over: string | undefined;
    const child = spawn('bash', ['-c', command], { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const stop = (why: string): void => {
      over ??= why;
      signalProcessGroup(child.pid, 'SIGKILL');
    };
    const timer = setTimeout(() => stop(`it ran longer than ${limits.timeoutMs} ms (goalCheckTimeoutMs) and was killed`), limits.timeoutMs);
    const take = (chunk: Buffer): void => {
      if (over) return;
      if (bytes + chunk.length > limits.outputBytes) {
        stop(`its output passed ${limits.outputBytes} bytes (goalCheckOutputBytes) and it was killed`);
        return;
      }
      bytes += chunk.length;
      chunks.push(chunk);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ passed: false, exitCode: null, output: '', problem: `it could not start: ${error.message}` });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      const output = Buffer.concat(chunks).toString('utf8');
      if (over) resolve({ passed: false, exitCode: null, output, problem: over });
      else if (code === 0) resolve({ passed: true, exitCode: 0, output });
      else resolve({ passed: false, exitCode: code, output, problem: `it exited ${code ?? 'on a signal'}` });
    });
  });
}
