/** A private X display (Xvfb) and its clipboard (xclip), for the tests of `/paste`. */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';

const has = (tool: string): boolean => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;

/** True when Xvfb and xclip are installed (the tests that need them are skipped otherwise). */
export const hasXClipboard = has('Xvfb') && has('xclip');

export interface XDisplay {
  /** The value for DISPLAY. */
  display: string;
  /** Puts `data` on the clipboard as `type` (xclip keeps serving it in the background). */
  copy(type: string, data: Buffer | string): void;
  stop(): void;
}

/** Starts Xvfb on a free display number and waits (bounded) for its socket. */
export async function startXDisplay(deadlineMs = 30_000): Promise<XDisplay> {
  let number = 100 + (process.pid % 800);
  while (fs.existsSync(`/tmp/.X11-unix/X${number}`) || fs.existsSync(`/tmp/.X${number}-lock`)) number++;
  const server: ChildProcess = spawn('Xvfb', [`:${number}`, '-nolisten', 'tcp', '-screen', '0', '640x480x24'], { stdio: 'ignore' });
  const display = `:${number}`;
  const end = Date.now() + deadlineMs;
  while (!fs.existsSync(`/tmp/.X11-unix/X${number}`)) {
    if (Date.now() > end || server.exitCode !== null) {
      server.kill('SIGKILL');
      throw new Error(`Xvfb did not start on ${display}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    display,
    copy(type, data) {
      // xclip forks a child that owns the selection until another client takes it; its parent exits at once.
      execFileSync('xclip', ['-selection', 'clipboard', '-t', type, '-i'], { input: data, env: { ...process.env, DISPLAY: display }, stdio: ['pipe', 'ignore', 'ignore'], timeout: 10_000 });
    },
    stop() {
      // The last xclip serving the selection exits with the server.
      server.kill('SIGTERM');
    },
  };
}
