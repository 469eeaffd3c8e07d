// What a failed write to stdout or stderr does, for every command at once: a
// reader that went away (EPIPE: `xdog ... | head`) ends the command at once
// with status 0, as `cat` does; any other failure (ENOSPC: `> /dev/full`,
// EIO) is one `xdog:` line on stderr and status 1. Without this a command
// waiting for 'drain' sleeps forever and an unhandled error prints a stack.
const REASONS = { ENOSPC: 'no space left on the device', EIO: 'an input/output error', EFBIG: 'the file is too large', EDQUOT: 'the disk quota is used up' };

function onOutputError(name, error) {
  if (error?.code === 'EPIPE') process.exit(name === 'stdout' ? 0 : 1);
  const reason = REASONS[error?.code] ?? error?.message ?? String(error);
  if (name === 'stdout') {
    try {
      const code = error?.code ? ` (${error.code})` : '';
      process.stderr.write(`xdog: could not write to stdout: ${reason}${code}; the output is incomplete [UNAVAILABLE] (free some space, or send the output elsewhere)\n`);
    } catch {
      // stderr failed too: the status says it
    }
  }
  process.exit(1);
}

// First in line: oclif's own listener swallows EPIPE (the hang) and rethrows the rest (the stack).
for (const name of ['stdout', 'stderr']) process[name].prependListener('error', (error) => onOutputError(name, error));
