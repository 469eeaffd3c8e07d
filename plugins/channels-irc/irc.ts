/**
 * The IRC channel, on irc-framework: the bot joins a server (and optionally
 * rooms) under its nick; a private message from an allowed nick is a
 * message for the group, answered privately; in a room only lines addressed
 * to the bot ("nick: text") count, and are answered in the room. IRC has no
 * delivery ids or redelivery, so when the inbox is full the sender is told
 * by NOTICE to send again later (nothing is dropped silently). IRC nicks are
 * not authenticated unless the server enforces registered nicks: say so to
 * whoever relies on the allow-list.
 */
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import type IRC from 'irc-framework';
import { ErrorCodes, XdogError, describeError, z } from '../../core/index.js';
import { defineChannelType, type OfferResult } from '../channels/index.js';

// Loaded when an IRC channel is made, so every other xdog process skips irc-framework.
const requireIrc = createRequire(import.meta.url);

const EnvName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name');

const IrcSettingsSchema = z
  .object({
    host: z.string().min(1),
    port: z.number().int().min(1).max(65535).default(6697),
    tls: z.boolean().default(true),
    nick: z.string().regex(/^[A-Za-z[\]\\`_^{|}][A-Za-z0-9[\]\\`_^{|}-]{0,29}$/, 'must be an IRC nick'),
    /** The environment variable holding the server password, if the server wants one. */
    password_env: EnvName.optional(),
    /** Rooms to join; lines there count only when addressed to the nick. */
    rooms: z.array(z.string().regex(/^[#&][^\s,]{1,49}$/, 'must be a room name such as #team')).max(20).default([]),
    /** Seconds to wait for the server to accept the connection at start. */
    connect_timeout_seconds: z.number().int().min(1).max(120).default(20),
  })
  .strict();

/** What a sender is told when their message was not taken. */
const NOTICES: Partial<Record<OfferResult, string>> = {
  full: 'busy: your message was not taken (the inbox is full); send it again in a moment',
  too_large: 'your message is too long to take',
};

export const ircChannel = defineChannelType('irc', IrcSettingsSchema, (context) => {
  const { settings } = context;
  const password = settings.password_env ? process.env[settings.password_env] : undefined;
  if (settings.password_env && !password) {
    throw new XdogError(ErrorCodes.CONFIG_INVALID, `claw.channels.${context.id}.settings.password_env names ${settings.password_env}, which is not set`, { hint: `export ${settings.password_env} in the gateway's environment` });
  }
  const { Client } = requireIrc('irc-framework') as typeof IRC;
  const client = new Client({ auto_reconnect: true, auto_reconnect_max_retries: 10, message_max_length: 350 });
  let state: 'idle' | 'connecting' | 'registered' | 'disconnected' | 'stopped' = 'idle';

  client.on('registered', () => {
    state = 'registered';
    for (const room of settings.rooms) client.join(room);
  });
  client.on('reconnecting', () => {
    state = 'connecting';
    context.log('connection lost; reconnecting');
  });
  client.on('close', () => {
    if (state !== 'stopped') {
      state = 'disconnected';
      context.log('disconnected from the server, reconnection attempts exhausted');
    }
  });
  client.on('privmsg', (event) => {
    if (event.from_server || state === 'stopped') return;
    const inRoom = /^[#&]/.test(event.target);
    let text = event.message;
    if (inRoom) {
      const addressed = new RegExp(`^${escapeRegExp(client.user.nick)}[:,]\\s*`, 'i').exec(text);
      if (!addressed) return;
      text = text.slice(addressed[0].length);
    }
    void context.inbox.tryOffer({ id: randomUUID(), sender: event.nick, replyTo: inRoom ? event.target : event.nick, text }).then(
      (result) => {
        const notice = NOTICES[result];
        if (notice && state !== 'stopped') client.notice(event.nick, notice);
      },
      (error: unknown) => context.log(`a message from ${event.nick} was not taken: ${describeError(error)}`),
    );
  });

  return {
    maxMessageChars: 2000,
    async start() {
      state = 'connecting';
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => fail(`the server did not accept the connection within ${settings.connect_timeout_seconds} s`), settings.connect_timeout_seconds * 1000);
        const fail = (reason: string): void => {
          clearTimeout(timer);
          client.removeListener('registered', done);
          reject(new XdogError(ErrorCodes.UNAVAILABLE, `channel ${context.id}: cannot join IRC at ${settings.host}:${settings.port} as ${settings.nick}: ${reason}`, { hint: 'check the host, port, tls and nick in its settings' }));
        };
        const done = (): void => {
          clearTimeout(timer);
          resolve();
        };
        client.once('registered', done);
        client.once('irc error', (event: { error?: string; reason?: string }) => fail(event.reason ?? event.error ?? 'refused'));
        client.connect({ host: settings.host, port: settings.port, tls: settings.tls, nick: settings.nick, username: 'xdog', gecos: 'xdog claw channel', ...(password ? { password } : {}) });
      }).catch((error: unknown) => {
        state = 'stopped';
        client.quit();
        throw error;
      });
      context.log(`connected to ${settings.host}:${settings.port} as ${client.user.nick}`);
    },
    async stop() {
      if (state === 'stopped') return;
      state = 'stopped';
      const closed = new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 2000);
        client.once('close', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      client.quit('the gateway is stopping');
      await closed;
    },
    async send(to, text) {
      if (state !== 'registered') throw new XdogError(ErrorCodes.UNAVAILABLE, `not connected to ${settings.host} (${state})`);
      client.say(to, text);
    },
    describe: () => ({ server: `${settings.host}:${settings.port}`, tls: settings.tls, nick: client.user?.nick ?? settings.nick, state, rooms: settings.rooms }),
  };
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
