/** The part of irc-framework (which ships no types) the IRC channel uses. */
declare module 'irc-framework' {
  import { EventEmitter } from 'node:events';

  export interface PrivmsgEvent {
    nick: string;
    ident: string;
    hostname: string;
    target: string;
    message: string;
    from_server: boolean;
  }

  export class Client extends EventEmitter {
    constructor(options?: Record<string, unknown>);
    user: { nick: string };
    connected: boolean;
    connect(options: { host: string; port: number; nick: string; username?: string; gecos?: string; password?: string; tls?: boolean }): void;
    join(channel: string, key?: string): void;
    say(target: string, message: string): void;
    notice(target: string, message: string): void;
    quit(message?: string): void;
    on(event: 'privmsg', listener: (event: PrivmsgEvent) => void): this;
    on(event: string, listener: (...args: any[]) => void): this;
  }

  const IRC: { Client: typeof Client };
  export default IRC;
}
