/** Runs the built CLI (dist/, compiled by test/global-setup.ts) as a child process. */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `bin/<bin>.js args...` with an isolated XDG environment unless `env` overrides it. */
export function runCli(args: string[], options: { bin?: string; env?: NodeJS.ProcessEnv; cwd?: string; input?: string } = {}): CliResult {
  const result: SpawnSyncReturns<string> = spawnSync(process.execPath, [path.join(repoRoot, 'bin', `${options.bin ?? 'run'}.js`), ...args], {
    cwd: options.cwd ?? repoRoot,
    env: { ...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: '1', ...options.env },
    encoding: 'utf8',
    input: options.input,
    timeout: 120_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
