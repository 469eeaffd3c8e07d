/**
 * Builds dist/ once before the suite, so e2e tests run the real CLI. Emits
 * even when the type check fails (the typecheck script reports those). Skips
 * the build when dist/ is already newer than every source file: `npm test`
 * emits it in its type check just before (test/support/check.sh).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SOURCE_DIRS = ['core', 'hooks', 'plugins', 'commands', 'entities'];

/** True when every source .ts has its compiled .js in dist/, written after the source last changed. */
function distIsFresh(root: string): boolean {
  for (const dir of SOURCE_DIRS) {
    for (const file of fs.readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })) {
      if (!file.endsWith('.ts') || file.endsWith('.d.ts')) continue;
      const source = path.join(root, dir, file);
      const built = path.join(root, 'dist', dir, file.replace(/\.ts$/, '.js'));
      if (!fs.existsSync(built) || fs.statSync(built).mtimeMs < fs.statSync(source).mtimeMs) return false;
    }
  }
  return true;
}

/** True when dist/web (the dashboard's built pages) is newer than every file of web/. */
function webIsFresh(root: string): boolean {
  const built = path.join(root, 'dist/web/index.html');
  if (!fs.existsSync(built)) return false;
  const at = fs.statSync(built).mtimeMs;
  return fs.readdirSync(path.join(root, 'web'), { recursive: true, encoding: 'utf8' }).every((file) => fs.statSync(path.join(root, 'web', file)).mtimeMs <= at);
}

/** Builds the dashboard's front end (vite) when it is missing or older than its sources: the web tests serve it. */
function buildWeb(root: string): void {
  if (webIsFresh(root)) return;
  execFileSync(process.execPath, [path.join(root, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'web/vite.config.ts'], { cwd: root, stdio: 'pipe' });
}

export default function setup(): void {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  buildWeb(root);
  if (distIsFresh(root)) return;
  try {
    execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'pipe' });
  } catch (error) {
    process.stderr.write(`global-setup: tsc reported errors (dist was still emitted):\n${String((error as { stdout?: Buffer }).stdout ?? '')}\n`);
  }
}
