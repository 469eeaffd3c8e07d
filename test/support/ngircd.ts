/**
 * A real IRC server for channel tests: ngircd (Debian package `ngircd`,
 * which .ci/run installs) started in the foreground on 127.0.0.1 with a
 * temp config, and stopped by the test.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import IRC from 'irc-framework';
import { tempDir } from './temp.js';

export interface IrcServer {
  port: number;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function startIrcServer(): Promise<IrcServer> {
  const root = tempDir('xdog-ngircd-');
  const port = await freePort();
  const config = path.join(root, 'ngircd.conf');
  fs.writeFileSync(
    config,
    ['[Global]', 'Name = irc.xdog.test', 'Info = xdog test server', 'Listen = 127.0.0.1', `Ports = ${port}`, 'MotdPhrase = test', '[Limits]', 'MaxConnectionsIP = 0', 'MaxNickLength = 30', '[Options]', 'DNS = no', 'Ident = no', 'PAM = no', ''].join('\n'),
  );
  // Debian installs it in /usr/sbin, which a non-root PATH may lack.
  const binary = fs.existsSync('/usr/sbin/ngircd') ? '/usr/sbin/ngircd' : 'ngircd';
  const child: ChildProcess = spawn(binary, ['-n', '-f', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`ngircd did not get ready:\n${output}`)), 15_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      if (output.includes('ready')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`cannot start ngircd (install the Debian package ngircd): ${error.message}`));
    });
  });
  return {
    port,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export interface IrcUser {
  nick: string;
  /** Private messages received so far, from whom and what. */
  received: Array<{ from: string; text: string; notice: boolean }>;
  /** Lines others said in the rooms this user joined. */
  roomLines: Array<{ room: string; from: string; text: string }>;
  /** Who joined the rooms this user is in (this user included), in order. */
  joins: Array<{ room: string; nick: string }>;
  /** Joins a room, resolving once the server confirmed it. */
  join(room: string): Promise<void>;
  say(target: string, text: string): void;
  quit(): Promise<void>;
}

/** Connects a person to the server under `nick`. */
export async function ircUser(port: number, nick: string): Promise<IrcUser> {
  const client = new IRC.Client({ auto_reconnect: false });
  const received: IrcUser['received'] = [];
  const roomLines: IrcUser['roomLines'] = [];
  const joins: IrcUser['joins'] = [];
  client.on('join', (event: { nick: string; channel: string }) => joins.push({ room: event.channel, nick: event.nick }));
  client.on('privmsg', (event) => {
    if (/^[#&]/.test(event.target)) roomLines.push({ room: event.target, from: event.nick, text: event.message });
    else received.push({ from: event.nick, text: event.message, notice: false });
  });
  client.on('notice', (event: { nick: string; message: string; from_server: boolean }) => {
    if (!event.from_server) received.push({ from: event.nick, text: event.message, notice: true });
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${nick} could not join the IRC server`)), 15_000);
    client.once('registered', () => {
      clearTimeout(timer);
      resolve();
    });
    client.connect({ host: '127.0.0.1', port, nick, tls: false });
  });
  return {
    nick,
    received,
    roomLines,
    joins,
    join: (room) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${nick} could not join ${room}`)), 15_000);
        const onJoin = (event: { nick: string; channel: string }): void => {
          if (event.nick !== nick || event.channel.toLowerCase() !== room.toLowerCase()) return;
          clearTimeout(timer);
          client.removeListener('join', onJoin);
          resolve();
        };
        client.on('join', onJoin);
        client.join(room);
      }),
    say: (target, text) => client.say(target, text),
    quit: () =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 2000);
        client.once('close', () => {
          clearTimeout(timer);
          resolve();
        });
        client.quit('bye');
      }),
  };
}
