/**
 * One-time login links and the browser sessions they open. A link's token
 * works once and for a few minutes; using it mints a session id that lives
 * only in an HttpOnly, SameSite=Strict cookie. Both maps are bounded (the
 * oldest entry goes first) and hold only hashes of the secrets, so a heap
 * dump of a long-running server leaks no usable token.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { LIMITS } from '../../core/limits.js';

export const SESSION_COOKIE = 'xdog_web';

/** What a browser session knows: when it started and the event streams it holds. */
export interface WebSession {
  id: string;
  createdAt: number;
  expiresAt: number;
  streams: number;
}

const hash = (secret: string): string => createHash('sha256').update(secret).digest('hex');

export class Logins {
  /** hash of a link token -> when it expires. */
  readonly #links = new Map<string, number>();
  /** hash of a session id -> the session. */
  readonly #sessions = new Map<string, WebSession>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** A new one-time link token (43 base64url characters, 256 bits). */
  mintLink(): string {
    const token = randomBytes(32).toString('base64url');
    this.#links.set(hash(token), this.#now() + LIMITS.webLoginLinkSeconds * 1000);
    while (this.#links.size > LIMITS.webLoginLinks) this.#links.delete(this.#links.keys().next().value!);
    return token;
  }

  /** Trades a link token for a new session id; null when the token is unknown, used or expired (it is gone either way). */
  redeem(token: string): string | null {
    if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
    const key = hash(token);
    const expiresAt = this.#links.get(key);
    this.#links.delete(key);
    if (expiresAt === undefined || expiresAt < this.#now()) return null;
    const id = randomBytes(32).toString('base64url');
    const now = this.#now();
    this.#sessions.set(hash(id), { id: hash(id).slice(0, 12), createdAt: now, expiresAt: now + LIMITS.webSessionHours * 3_600_000, streams: 0 });
    while (this.#sessions.size > LIMITS.webSessions) this.#sessions.delete(this.#sessions.keys().next().value!);
    return id;
  }

  /** The session a Cookie header names, or null (none, unknown, expired). */
  sessionOf(cookieHeader: string | undefined): WebSession | null {
    const id = cookieValue(cookieHeader, SESSION_COOKIE);
    if (id === null) return null;
    const key = hash(id);
    const session = this.#sessions.get(key);
    if (!session) return null;
    if (session.expiresAt < this.#now()) {
      this.#sessions.delete(key);
      return null;
    }
    return session;
  }

  /** Ends the session the cookie names (logout). */
  end(cookieHeader: string | undefined): void {
    const id = cookieValue(cookieHeader, SESSION_COOKIE);
    if (id !== null) this.#sessions.delete(hash(id));
  }
}

/** The Set-Cookie value for a session id: HttpOnly (no script reads it), SameSite=Strict (no other site sends it). */
export function sessionCookie(id: string): string {
  return `${SESSION_COOKIE}=${id}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${LIMITS.webSessionHours * 3600}`;
}

/** Constant-time equality of two secrets. */
export function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(hash(a), 'hex');
  const right = Buffer.from(hash(b), 'hex');
  return timingSafeEqual(left, right);
}

function cookieValue(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=') || null;
  }
  return null;
}
