/** Reads a secret: hidden typing on a TTY, else the whole of stdin. Never echoed. */
import readline from 'node:readline';
import { Writable } from 'node:stream';
import { ErrorCodes, LIMITS, XdogError } from '../../../core/index.js';
import { readStdin } from './read-stdin.js';

/** Resolves with the typed secret (empty on end of input); Ctrl+C rejects with ABORTED. */
export async function readSecret(question: string): Promise<string> {
  if (!process.stdin.isTTY) return (await readStdin(LIMITS.secretInputBytes, 'the secret')).trim();
  let muted = false;
  const output = new Writable({
    write(chunk, _encoding, done) {
      if (!muted) process.stderr.write(chunk);
      done();
    },
  });
  const rl = readline.createInterface({ input: process.stdin, output, terminal: true });
  try {
    const answer = new Promise<string>((resolve, reject) => {
      rl.question(question, resolve);
      // Without these, Ctrl+C only pauses the prompt and Ctrl+D leaves it waiting: the command would never answer.
      rl.once('SIGINT', () => reject(new XdogError(ErrorCodes.ABORTED, 'cancelled at the prompt; nothing was stored')));
      rl.once('close', () => resolve(''));
    });
    muted = true;
    return (await answer).trim();
  } finally {
    rl.close();
    process.stderr.write('\n');
  }
}
