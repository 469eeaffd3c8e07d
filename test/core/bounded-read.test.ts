import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importPlugin, loadConfig, readRegularFile, readRegularFileSync, readSkillFile, type DiscoveredPlugin } from '../../core/index.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xdog-bounded-read-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A FIFO nobody writes to: a plain read of it would block forever. */
function fifo(name = 'pipe'): string {
  const file = path.join(dir, name);
  execFileSync('mkfifo', [file]);
  return file;
}

const options = { maxBytes: 16, what: 'test file' };

describe('readRegularFile(Sync)', () => {
  it('reads a regular file whole', async () => {
    const file = path.join(dir, 'a.txt');
    fs.writeFileSync(file, 'hello');
    expect(readRegularFileSync(file, options).toString()).toBe('hello');
    expect((await readRegularFile(file, options)).toString()).toBe('hello');
  });

  it('refuses a FIFO, a device and a link to a device without reading them', async () => {
    const link = path.join(dir, 'zero');
    fs.symlinkSync('/dev/zero', link);
    for (const [file, kind] of [[fifo(), 'FIFO'], ['/dev/zero', 'character device'], [link, 'character device'], [dir, 'directory']] as const) {
      expect(() => readRegularFileSync(file, options)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining(`test file ${file} is a ${kind}`) }));
      await expect(readRegularFile(file, options)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining(kind) });
    }
  });

  it('refuses a file over the limit, naming sizes, and passes fs errors through', async () => {
    const file = path.join(dir, 'big.txt');
    fs.writeFileSync(file, 'x'.repeat(17));
    expect(() => readRegularFileSync(file, options)).toThrow(expect.objectContaining({ code: 'LIMIT_EXCEEDED', message: `test file ${file} is 17 bytes, over the limit of 16 bytes` }));
    await expect(readRegularFile(file, { ...options, code: 'USAGE' })).rejects.toMatchObject({ code: 'USAGE' });
    expect(() => readRegularFileSync(path.join(dir, 'missing'), options)).toThrow(expect.objectContaining({ code: 'ENOENT' }));
  });

  it('is what the config and skill readers use', () => {
    const pipe = fifo('config.yaml');
    expect(() => loadConfig(pipe)).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID', message: expect.stringContaining('FIFO') }));
    expect(() => readSkillFile('/dev/zero')).toThrow(expect.objectContaining({ message: expect.stringContaining('character device') }));
  });

  it('keeps a plugin entry that is a FIFO from being imported', async () => {
    const entry = fifo('index.js');
    const discovered = { name: 'p', packageName: 'p', source: 'project', dir, entry, provides: {} } as unknown as DiscoveredPlugin;
    await expect(importPlugin(discovered)).rejects.toMatchObject({ code: 'PLUGIN_LOAD_FAILED', message: expect.stringContaining(`its entry ${entry} is a FIFO`) });
  });
});
