/** Reads a secret: hidden typing on a TTY, else the whole of stdin. Never echoed. */
import fs from 'node:fs';
import readline from 'node:readline';
import { Writable } from 'node:stream';

export async function readSecret(question: string): Promise<string> {
  if (!process.stdin.isTTY) return fs.readFileSync(0, 'utf8').trim();
  let muted = false;
  const output = new Writable({
    write(chunk, _encoding, done) {
      if (!muted) process.stderr.write(chunk);
      done();
    },
  });
  const rl = readline.createInterface({ input: process.stdin, output, terminal: true });
  try {
    const answer = new Promise<string>((resolve) => rl.question(question, resolve));
    muted = true;
    return (await answer).trim();
  } finally {
    rl.close();
    process.stderr.write('\n');
  }
}
