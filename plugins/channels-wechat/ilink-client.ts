/**
 * A client for the WeChat personal-account bot HTTP API ("iLink", what
 * OpenClaw's WeChat channel uses): QR login, long-poll for updates, send a
 * text, typing. JSON over POST/GET with a bearer token; failures are in the
 * body's `ret`/`errcode` even when HTTP says 200. Every request has a
 * deadline and every answer a size limit.
 */
import crypto from 'node:crypto';
import { ErrorCodes, XdogError, z } from '../../core/index.js';

export const DEFAULT_ILINK_BASE_URL = 'https://ilinkai.weixin.qq.com';
/** The largest answer read from the API. */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
/** A plain request's deadline (a long poll gets its own). */
const REQUEST_TIMEOUT_MS = 15_000;
const CHANNEL_VERSION = 'xdog-1';
/** `errcode` for an expired login. */
export const SESSION_EXPIRED = -14;

const TextItemSchema = z.object({ type: z.number().optional(), text_item: z.object({ text: z.string() }).optional() }).loose();
const WeixinMessageSchema = z
  .object({
    message_id: z.union([z.number(), z.string()]).optional(),
    client_id: z.string().optional(),
    from_user_id: z.string().optional(),
    create_time_ms: z.number().optional(),
    /** 1 = from a user, 2 = the bot's own. */
    message_type: z.number().optional(),
    item_list: z.array(TextItemSchema).optional(),
    context_token: z.string().optional(),
  })
  .loose();
export type WeixinMessage = z.infer<typeof WeixinMessageSchema>;

const Base = z.object({ ret: z.number().optional(), errcode: z.number().optional(), errmsg: z.string().optional() }).loose();
const UpdatesSchema = Base.extend({ msgs: z.array(WeixinMessageSchema).optional(), get_updates_buf: z.string().optional(), longpolling_timeout_ms: z.number().optional() });
const ConfigSchema = Base.extend({ typing_ticket: z.string().optional() });
const QrSchema = z.object({ qrcode: z.string().min(1), qrcode_img_content: z.string().min(1) }).loose();
const QrStatusSchema = z
  .object({ status: z.string(), bot_token: z.string().optional(), ilink_bot_id: z.string().optional(), baseurl: z.string().optional(), ilink_user_id: z.string().optional() })
  .loose();
export type QrStatus = z.infer<typeof QrStatusSchema>;

export class ILinkClient {
  readonly baseUrl: string;
  readonly #token?: string;

  constructor(baseUrl: string, token?: string) {
    this.baseUrl = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
    this.#token = token;
  }

  /** New messages after `cursor` (empty at first), waiting up to `timeoutMs` for some. */
  getUpdates(cursor: string, timeoutMs: number, signal: AbortSignal): Promise<z.infer<typeof UpdatesSchema>> {
    return this.#post('ilink/bot/getupdates', { get_updates_buf: cursor }, UpdatesSchema, timeoutMs, signal);
  }

  async sendText(to: string, contextToken: string, text: string, signal: AbortSignal): Promise<void> {
    const msg = { from_user_id: '', to_user_id: to, client_id: crypto.randomUUID(), message_type: 2, message_state: 2, context_token: contextToken, item_list: [{ type: 1, text_item: { text } }] };
    await this.#post('ilink/bot/sendmessage', { msg }, Base, REQUEST_TIMEOUT_MS, signal);
  }

  async typingTicket(userId: string, contextToken: string, signal: AbortSignal): Promise<string> {
    const answer = await this.#post('ilink/bot/getconfig', { ilink_user_id: userId, context_token: contextToken }, ConfigSchema, REQUEST_TIMEOUT_MS, signal);
    if (!answer.typing_ticket) throw new XdogError(ErrorCodes.UNAVAILABLE, 'the WeChat API gave no typing ticket');
    return answer.typing_ticket;
  }

  async sendTyping(userId: string, ticket: string, on: boolean, signal: AbortSignal): Promise<void> {
    await this.#post('ilink/bot/sendtyping', { ilink_user_id: userId, typing_ticket: ticket, status: on ? 1 : 2 }, Base, REQUEST_TIMEOUT_MS, signal);
  }

  /** A login QR code: its id and the content to show as a QR code. */
  async loginQrCode(signal: AbortSignal): Promise<z.infer<typeof QrSchema>> {
    return this.#request('GET', 'ilink/bot/get_bot_qrcode?bot_type=3', undefined, QrSchema, REQUEST_TIMEOUT_MS, signal);
  }

  /** Waits (long poll) for the QR code's state: wait, scaned, confirmed (with the token) or expired. */
  async loginStatus(qrcode: string, signal: AbortSignal): Promise<QrStatus> {
    return this.#request('GET', `ilink/bot/get_qrcode_status?qrcode=${encodeURIComponent(qrcode)}`, undefined, QrStatusSchema, 40_000, signal, { 'iLink-App-ClientVersion': '1' });
  }

  async #post<S extends z.ZodType>(endpoint: string, body: Record<string, unknown>, schema: S, timeoutMs: number, signal: AbortSignal): Promise<z.infer<S>> {
    const answer = await this.#request('POST', endpoint, { ...body, base_info: { channel_version: CHANNEL_VERSION } }, schema, timeoutMs, signal);
    const { ret, errcode, errmsg } = answer as z.infer<typeof Base>;
    const code = errcode || ret;
    if (code) {
      throw new XdogError(code === SESSION_EXPIRED ? ErrorCodes.AUTH_FAILED : ErrorCodes.UNAVAILABLE, `WeChat ${endpoint} failed: ${code}${errmsg ? ` ${errmsg}` : ''}`, {
        hint: code === SESSION_EXPIRED ? 'the login expired: log in again with `xdog claw channels login ID`' : 'see the gateway log; nothing is retried automatically',
      });
    }
    return answer;
  }

  async #request<S extends z.ZodType>(method: 'GET' | 'POST', endpoint: string, body: Record<string, unknown> | undefined, schema: S, timeoutMs: number, signal: AbortSignal, extraHeaders: Record<string, string> = {}): Promise<z.infer<S>> {
    const headers: Record<string, string> = { ...extraHeaders, 'X-WECHAT-UIN': Buffer.from(String(crypto.randomInt(0, 2 ** 32 - 1))).toString('base64') };
    if (body) headers['content-type'] = 'application/json';
    if (this.#token) {
      headers.AuthorizationType = 'ilink_bot_token';
      headers.Authorization = `Bearer ${this.#token}`;
    }
    const response = await fetch(new URL(endpoint, this.baseUrl), {
      method,
      headers,
      ...(body ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), signal]),
    });
    const text = await boundedText(response, MAX_ANSWER_BYTES);
    if (!response.ok) throw new XdogError(ErrorCodes.UNAVAILABLE, `WeChat ${endpoint} answered HTTP ${response.status}`);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new XdogError(ErrorCodes.UNAVAILABLE, `WeChat ${endpoint} answered something that is not JSON`);
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) throw new XdogError(ErrorCodes.UNAVAILABLE, `WeChat ${endpoint} answered an unexpected shape: ${parsed.error.issues[0]?.path.join('.')} ${parsed.error.issues[0]?.message}`);
    return parsed.data;
  }
}

async function boundedText(response: Response, maxBytes: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body ?? []) {
    size += chunk.length;
    if (size > maxBytes) {
      await response.body?.cancel().catch(() => undefined);
      throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `the WeChat API answered more than ${maxBytes} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
