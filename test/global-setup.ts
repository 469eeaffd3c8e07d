/**
 * Builds dist/ once before the suite, so e2e tests run the real CLI. Emits
 * even when the type check fails (the typecheck script reports those).
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  try {
    execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'pipe' });
  } catch (error) {
    process.stderr.write(`global-setup: tsc reported errors (dist was still emitted):\n${String((error as { stdout?: Buffer }).stdout ?? '')}\n`);
  }
}
