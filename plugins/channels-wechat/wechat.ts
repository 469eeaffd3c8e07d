/**
 * The WeChat channel: a personal WeChat account's bot, reached through the
 * iLink bot API. A polling channel: it long-polls for updates and offers
 * each text message to the inbox, waiting while the inbox is full (polling
 * pauses; the API keeps the rest). The cursor advances only after a whole
 * batch was offered, and is saved in the claw store then: a restart goes on
 * from it, so what was taken is not fetched again and what the API still
 * holds is not skipped. Replies go back with the conversation's context
 * token; typing uses the ticket the API hands out per user.
 *
 * The token comes from `xdog claw channels login ID` (stored as credential
 * `wechat:ID`) or from the variable `token_env` names.
 */
import { ErrorCodes, FileCredentialStore, XdogError, describeError, z } from '../../core/index.js';
import { defineChannelType } from '../channels/index.js';
import { DEFAULT_ILINK_BASE_URL, ILinkClient, SESSION_EXPIRED, type WeixinMessage } from './ilink-client.js';

const EnvName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name');

export const WechatSettingsSchema = z
  .object({
    base_url: z.url({ protocol: /^https?$/ }).default(DEFAULT_ILINK_BASE_URL),
    /** The variable holding the bot token; without it, the token `xdog claw channels login ID` stored. */
    token_env: EnvName.optional(),
    /** How long one poll may wait for messages, in seconds. */
    poll_timeout_seconds: z.number().int().min(1).max(60).default(35),
    max_message_chars: z.number().int().min(64).max(10_000).default(2000),
  })
  .strict();

/** The credential name a channel's login token is stored under. */
export function wechatCredentialName(channelId: string): string {
  return `wechat:${channelId}`;
}

/** Conversations whose context token is remembered (the oldest is forgotten first). */
const MAX_CONVERSATIONS = 10_000;
const BACKOFF_MS = { first: 1000, max: 30_000 };

/** The text of a user's message, or undefined for media-only messages (not taken). */
function textOf(message: WeixinMessage): string | undefined {
  const text = (message.item_list ?? [])
    .filter((item) => item.type === 1 && item.text_item)
    .map((item) => item.text_item!.text)
    .join('\n');
  return text.trim() ? text : undefined;
}

/** A stable id: the API's message id (a 64-bit number JSON may round) joined with its sender and time. */
function idOf(message: WeixinMessage): string {
  return [message.message_id ?? message.client_id ?? '', message.from_user_id ?? '', message.create_time_ms ?? ''].join(':');
}

export const wechatChannel = defineChannelType('wechat', WechatSettingsSchema, (context) => {
  const { settings, signal } = context;
  const token = settings.token_env ? process.env[settings.token_env] : tokenFromStore(context.id);
  if (!token) {
    throw new XdogError(ErrorCodes.CONFIG_INVALID, `channel ${context.id} has no WeChat token`, {
      hint: settings.token_env ? `export ${settings.token_env} in the gateway's environment` : `log in with \`xdog claw channels login ${context.id}\``,
    });
  }
  const client = new ILinkClient(settings.base_url, token);
  const contextTokens = new Map<string, string>();
  const typingTickets = new Map<string, string>();
  let cursor = '';
  let state = 'idle';
  let polling: Promise<void> | undefined;

  function remember(userId: string, contextToken: string): void {
    contextTokens.delete(userId);
    contextTokens.set(userId, contextToken);
    if (contextTokens.size > MAX_CONVERSATIONS) {
      const oldest = contextTokens.keys().next().value!;
      contextTokens.delete(oldest);
      typingTickets.delete(oldest);
    }
  }

  function contextTokenOf(userId: string): string {
    const found = contextTokens.get(userId);
    if (found === undefined) throw new XdogError(ErrorCodes.INVALID_STATE, `no WeChat conversation with ${userId} is known`, { hint: 'WeChat only allows replies into a conversation the user started' });
    return found;
  }

  async function poll(): Promise<void> {
    let backoff = BACKOFF_MS.first;
    while (!signal.aborted) {
      try {
        state = 'polling';
        const updates = await client.getUpdates(cursor, settings.poll_timeout_seconds * 1000 + 5000, signal);
        for (const message of updates.msgs ?? []) {
          if (message.message_type !== 1 || !message.from_user_id) continue;
          const text = textOf(message);
          if (text === undefined) {
            context.log(`a message from ${message.from_user_id} without text was not taken (only text is supported)`);
            continue;
          }
          if (message.context_token) remember(message.from_user_id, message.context_token);
          state = 'waiting for inbox room';
          const result = await context.inbox.offer({ id: idOf(message), sender: message.from_user_id, replyTo: message.from_user_id, text });
          if (result === 'closed') return;
        }
        // Only after the whole batch was offered: a crash before replays it, which the message ids make harmless.
        if (updates.get_updates_buf !== undefined && updates.get_updates_buf !== cursor) {
          cursor = updates.get_updates_buf;
          await saveCursor();
        }
        backoff = BACKOFF_MS.first;
      } catch (error) {
        if (signal.aborted) return;
        const expired = error instanceof XdogError && error.code === ErrorCodes.AUTH_FAILED;
        state = expired ? 'login expired' : 'retrying';
        context.log(`polling failed: ${describeError(error)}${expired ? ` (errcode ${SESSION_EXPIRED}); log in again with \`xdog claw channels login ${context.id}\`` : ''}; next poll in ${backoff} ms`);
        await sleep(expired ? BACKOFF_MS.max : backoff, signal);
        backoff = Math.min(backoff * 2, BACKOFF_MS.max);
      }
    }
  }

  /** A cursor that could not be saved stays in memory: a restart then fetches the batch again, and its message ids keep it from running twice. */
  async function saveCursor(): Promise<void> {
    try {
      await context.state.save(cursor);
    } catch (error) {
      context.log(`the poll cursor was not saved (a restart fetches this batch again; its messages do not run twice): ${describeError(error)}`);
    }
  }

  async function ticketFor(userId: string): Promise<string> {
    const known = typingTickets.get(userId);
    if (known) return known;
    const ticket = await client.typingTicket(userId, contextTokenOf(userId), signal);
    typingTickets.set(userId, ticket);
    return ticket;
  }

  return {
    maxMessageChars: settings.max_message_chars,
    typingRefreshMs: 5000,
    async start() {
      // Where the last lifetime stopped taking messages; unreadable state fails the start rather than replaying from the beginning.
      cursor = (await context.state.load()) ?? '';
      polling = poll();
      context.log(`polling ${client.baseUrl}${cursor ? ' from the saved cursor' : ''}`);
    },
    async stop() {
      state = 'stopped';
      await polling;
    },
    send: (to, text) => client.sendText(to, contextTokenOf(to), text, signal),
    typing: async (to, on) => client.sendTyping(to, await ticketFor(to), on, signal),
    describe: () => ({ api: settings.base_url, state, conversations: contextTokens.size }),
  };
});

function tokenFromStore(channelId: string): string | undefined {
  const credential = new FileCredentialStore().get(wechatCredentialName(channelId));
  return credential?.type === 'api_key' ? credential.key : undefined;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
