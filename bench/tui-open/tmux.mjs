/**
 * A tmux server of the bench's own (its own socket, no user config) driven
 * through one control-mode client (`tmux -C`), so starting a program in a
 * 120x40 pseudo-terminal, typing into it and reading its screen are each a
 * line on a pipe instead of a tmux process per poll: the screen can be read
 * every few milliseconds without the polling itself loading the machine.
 * Both TUIs are measured through the same driver.
 */
import { spawn, spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';

export const COLUMNS = 120;
export const ROWS = 40;

/** `'…'` for a POSIX shell. */
export const shellQuote = (value) => `'${String(value).replaceAll("'", `'\\''`)}'`;
/** `"…"` for tmux's own command parser. */
const tmuxQuote = (value) => `"${String(value).replace(/["\\$]/g, (c) => `\\${c}`)}"`;

/** Whether tmux is installed. */
export function hasTmux() {
  return spawnSync('tmux', ['-V'], { encoding: 'utf8' }).status === 0;
}

/**
 * Starts the server on the socket file `socket` (inside the bench's own folder, so it goes with
 * it: tmux leaves its socket behind) with `env` as every pane's environment; resolves to a driver.
 */
export async function startTmux(env, socket) {
  const child = spawn('tmux', ['-S', socket, '-f', '/dev/null', '-C', 'new-session', '-s', 'control', '-x', String(COLUMNS), '-y', String(ROWS), 'sleep 86400'], {
    env,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const pending = [];
  let block = null;
  let buffer = '';
  child.stdout.setEncoding('utf8').on('data', (data) => {
    buffer += data;
    for (let newline; (newline = buffer.indexOf('\n')) >= 0; ) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      // A reply is the lines between %begin and the matching %end (or %error); notifications come outside blocks.
      if (!block) {
        const begin = /^%begin (\d+) (\d+) (\d+)$/.exec(line);
        if (begin) block = { id: begin[2], lines: [] };
        continue;
      }
      const end = /^%(end|error) (\d+) (\d+) (\d+)$/.exec(line);
      if (end && end[3] === block.id) {
        const waiter = pending.shift();
        const done = block;
        block = null;
        // The first block answers the session the client was started with, which no one awaits.
        if (waiter) (end[1] === 'end' ? waiter.resolve : waiter.reject)(done.lines.join('\n'));
        else if (end[1] === 'error') console.error(`tmux: ${done.lines.join('\n')}`);
      } else block.lines.push(line);
    }
  });
  let gone = null;
  const exited = new Promise((resolve) =>
    child.on('exit', (code) => {
      // Fail what is waiting rather than leave it hanging (the server can die under the client).
      gone = `the tmux control client exited (${code})${block ? `: ${block.lines.join(' ')}` : ''}`;
      for (const waiter of pending.splice(0)) waiter?.reject(gone);
      resolve();
    }),
  );
  pending.push(null); // the reply to the command line's new-session
  /** Sends one tmux command; resolves to its output. */
  const command = (text) =>
    new Promise((resolve, reject) => {
      if (gone) return reject(new Error(gone));
      pending.push({ resolve, reject: (message) => reject(new Error(`tmux ${text.split(' ')[0]}: ${message}`)) });
      child.stdin.write(`${text}\n`);
    });
  await command('display-message -p ready');
  // (No `window-size manual`: tmux 3.3a's server dies on the next new-session with it. A detached
  // session keeps the -x/-y it is made with, and start() checks it.)
  await command('set-option -g history-limit 100');
  // A program that exits stays on its pane, so a failure's last screen can be shown.
  await command('set-option -g remain-on-exit on');
  return {
    /** Starts `shellCommand` in a new detached 120x40 session `name`; resolves to the moment it was asked for. */
    async start(name, shellCommand) {
      const at = performance.now();
      await command(`new-session -d -s ${name} -x ${COLUMNS} -y ${ROWS} ${tmuxQuote(shellCommand)}`);
      const size = await command(`display-message -p -t ${name} '#{window_width}x#{window_height}'`);
      if (size !== `${COLUMNS}x${ROWS}`) throw new Error(`tmux made the pane ${size}, not ${COLUMNS}x${ROWS}`);
      return at;
    },
    /** The visible screen of session `name`, as text. */
    screen: (name) => command(`capture-pane -p -t ${name}`),
    /** The process id of the program in session `name`. */
    pid: async (name) => Number(await command(`display-message -p -t ${name} '#{pane_pid}'`)),
    /** Types `text` literally into session `name`. */
    type: (name, text) => command(`send-keys -t ${name} -l ${tmuxQuote(text)}`),
    /** Presses named keys (Enter, Escape, C-c) in session `name`. */
    press: (name, ...keys) => command(`send-keys -t ${name} ${keys.join(' ')}`),
    /** Ends session `name` and its programs (SIGHUP to the pane). */
    kill: (name) => command(`kill-session -t ${name}`).catch(() => {}),
    /**
     * Polls the screen of `name` every `everyMs` until `test(screen)` holds;
     * resolves to `{ at, screen }`, the moment it was seen. Rejects after `timeoutMs`.
     */
    async waitFor(name, test, { everyMs = 4, timeoutMs = 120_000, what = 'the screen' } = {}) {
      const deadline = performance.now() + timeoutMs;
      let polls = 0;
      for (;;) {
        const screen = await command(`capture-pane -p -t ${name}`).catch((error) => {
          throw new Error(`${what}: the pane is gone (the program exited?): ${error.message}`);
        });
        const at = performance.now();
        if (test(screen)) return { at, screen };
        if (++polls % 25 === 0 && (await command(`display-message -p -t ${name} '#{pane_dead}'`)) === '1') throw new Error(`${what}: the program exited; its last screen:\n${screen}`);
        if (at > deadline) throw new Error(`${what} did not show within ${timeoutMs / 1000} s; last screen:\n${screen}`);
        await new Promise((resolve) => setTimeout(resolve, everyMs));
      }
    },
    async close() {
      await command('kill-server').catch(() => {});
      child.stdin.end();
      await exited;
    },
  };
}
