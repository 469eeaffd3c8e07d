/**
 * Runs inside the sandbox for `network: { allow }`: listens on
 * 127.0.0.1:PORT of the sandbox's own network namespace, relays each
 * connection to the host's allow-list proxy over the Unix socket bound into
 * the sandbox, then runs the command with http(s)_proxy pointing here and
 * exits as it does. Argv: SOCKET PORT FDS -- COMMAND ARGS...
 */
import { spawn, type StdioOptions } from 'node:child_process';
import net from 'node:net';
import os from 'node:os';

const [socketPath, portText, fdsText, separator, command, ...args] = process.argv.slice(2);
if (!socketPath || !portText || !fdsText || separator !== '--' || !command) {
  process.stderr.write('xdog sandbox forwarder: usage: SOCKET PORT FDS -- COMMAND ARGS...\n');
  process.exit(2);
}
const port = Number(portText);
const server = net.createServer((inner) => {
  const outer = net.connect(socketPath);
  inner.pipe(outer);
  outer.pipe(inner);
  inner.once('error', () => outer.destroy());
  outer.once('error', () => inner.destroy());
  inner.once('close', () => outer.destroy());
  outer.once('close', () => inner.destroy());
});
server.once('error', (error) => {
  process.stderr.write(`xdog sandbox forwarder: cannot listen on 127.0.0.1:${port}: ${error.message}\n`);
  process.exit(70);
});
server.listen(port, '127.0.0.1', () => {
  const proxy = `http://127.0.0.1:${port}`;
  const env = { ...process.env, http_proxy: proxy, https_proxy: proxy, HTTP_PROXY: proxy, HTTPS_PROXY: proxy, ALL_PROXY: proxy, all_proxy: proxy, NO_PROXY: '', no_proxy: '' };
  // The command gets every descriptor the sandbox was given (an extension worker's channel is fd 3).
  const stdio: StdioOptions = ['inherit', 'inherit', 'inherit', ...Array.from({ length: Number(fdsText) }, (_, index) => index + 3)];
  const child = spawn(command, args, { stdio, env });
  child.once('error', (error) => {
    process.stderr.write(`xdog sandbox: cannot run ${command}: ${error.message}\n`);
    process.exit(127);
  });
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => child.kill(signal));
  child.once('exit', (code, signal) => {
    server.close();
    // As a shell reports it: 128 + the signal's number.
    process.exit(signal ? 128 + (os.constants.signals[signal] ?? 0) : (code ?? 1));
  });
});
