/** Runs the built CLI (dist/, compiled by test/global-setup.ts) as a child process. */
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
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

/** Like runCli, without blocking this process: for tests whose stand-in server lives in the test process. */
export function runCliAsync(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(repoRoot, 'bin', 'run.js'), ...args], {
      cwd: options.cwd ?? repoRoot,
      env: { ...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: '1', ...options.env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

/**
 * `claw(...)` runs `xdog claw ARGS` in a sandbox; `json(...)` adds `--json`
 * and parses the answer, throwing with the output on a non-zero exit. The
 * sandbox is read at each call (a file's beforeAll makes it).
 */
export function clawCommands(sandbox: () => { env: NodeJS.ProcessEnv; root: string }): { claw(...args: string[]): CliResult; json(...args: string[]): any } {
  const claw = (...args: string[]): CliResult => runCli(['claw', ...args], { env: sandbox().env, cwd: sandbox().root });
  const json = (...args: string[]): any => {
    const result = claw(...args, '--json');
    if (result.status !== 0) throw new Error(`xdog claw ${args.join(' ')} exited ${result.status}: ${result.stderr}${result.stdout}`);
    return JSON.parse(result.stdout);
  };
  return { claw, json };
}
