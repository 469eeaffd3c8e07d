/** Durability for renames and links: the new name is on disk only once its directory is synced. */
import fs from 'node:fs';

export function syncDirectory(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
