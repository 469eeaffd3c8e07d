/**
 * The seccomp programs as files bwrap can read on a descriptor: written once
 * per process and variant into a private (0700) temporary directory, removed
 * when the process exits.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { seccompProgram, type SeccompOptions } from './seccomp.js';

let dir: string | undefined;
const files = new Map<string, string>();

/** A private directory of this process for sandbox files (filters, proxy sockets). */
export function privateDir(): string {
  if (!dir) {
    const made = fs.mkdtempSync(path.join(os.tmpdir(), 'xdog-sandbox-'));
    fs.chmodSync(made, 0o700);
    process.once('exit', () => fs.rmSync(made, { recursive: true, force: true }));
    dir = made;
  }
  return dir;
}

/** The path of the filter file for `options`. */
export function seccompFile(options: SeccompOptions): string {
  const key = `${options.arch}-${options.denyUnixSockets ? 'nounix' : 'unix'}`;
  let file = files.get(key);
  if (!file) {
    file = path.join(privateDir(), `seccomp-${key}.bpf`);
    fs.writeFileSync(file, seccompProgram(options), { mode: 0o600 });
    files.set(key, file);
  }
  return file;
}
