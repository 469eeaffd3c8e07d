/** Writes extension packages into a temporary project's node_modules, where the host finds them. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export function tempProject(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'xdog-ext-'));
}

/** An extension package `id` whose index.mjs is `source` (a module exporting setup(api)). */
export function writeExtension(project: string, id: string, source: string): string {
  const dir = path.join(project, 'node_modules', id);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: id, version: '1.0.0', type: 'module', xdog: { extension: './index.mjs' } }));
  fs.writeFileSync(path.join(dir, 'index.mjs'), source);
  return dir;
}
