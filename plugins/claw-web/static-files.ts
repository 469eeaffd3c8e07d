/**
 * Serves the built front end (dist/web, made by `npm run build`) from memory:
 * read once at start, so a request never touches the file system and no path
 * from a request is ever joined to a directory.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ErrorCodes, XdogError } from '../../core/errors.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
};

export interface StaticFile {
  type: string;
  body: Buffer;
}

/** The folder of the built pages: `dist/web` of the installed package (also when this file runs from source, under vitest). */
export function builtPagesDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return path.join(dir, 'dist', 'web');
}

/** Every built file by its URL path ("/" is index.html); fails with the fix when the front end was not built. */
export function loadPages(dir = builtPagesDir()): Map<string, StaticFile> {
  if (!fs.existsSync(path.join(dir, 'index.html'))) {
    throw new XdogError(ErrorCodes.UNAVAILABLE, `the dashboard's pages are not built (no ${path.join(dir, 'index.html')})`, { hint: 'run `npm run build` in the xdog checkout' });
  }
  const pages = new Map<string, StaticFile>();
  for (const file of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const full = path.join(dir, file);
    if (!fs.statSync(full).isFile()) continue;
    const type = TYPES[path.extname(file)];
    if (!type) continue;
    pages.set(`/${file.split(path.sep).join('/')}`, { type, body: fs.readFileSync(full) });
  }
  pages.set('/', pages.get('/index.html')!);
  return pages;
}
