/** Login links and browser sessions: once only, expiring, bounded (oldest first). */
import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../../core/limits.js';
import { Logins, SESSION_COOKIE } from '../../../plugins/claw-web/logins.js';

const cookie = (id: string): string => `other=1; ${SESSION_COOKIE}=${id}`;

describe('claw web logins', () => {
  it('a link works once and only before it expires', () => {
    let now = 1_000_000;
    const logins = new Logins(() => now);
    const first = logins.mintLink();
    const id = logins.redeem(first);
    expect(id).toMatch(/^[\w-]{43}$/);
    expect(logins.redeem(first)).toBeNull();
    expect(logins.sessionOf(cookie(id!))).not.toBeNull();
    const late = logins.mintLink();
    now += LIMITS.webLoginLinkSeconds * 1000 + 1;
    expect(logins.redeem(late)).toBeNull();
    expect(logins.redeem('not a token')).toBeNull();
  });

  it('a session ends when it expires or logs out, and only its own cookie opens it', () => {
    let now = 0;
    const logins = new Logins(() => now);
    const id = logins.redeem(logins.mintLink())!;
    expect(logins.sessionOf(undefined)).toBeNull();
    expect(logins.sessionOf(cookie(`${id}x`))).toBeNull();
    logins.end(cookie(id));
    expect(logins.sessionOf(cookie(id))).toBeNull();
    const next = logins.redeem(logins.mintLink())!;
    now += LIMITS.webSessionHours * 3_600_000 + 1;
    expect(logins.sessionOf(cookie(next))).toBeNull();
  });

  it('keeps at most webLoginLinks links and webSessions sessions, dropping the oldest', () => {
    const logins = new Logins();
    const links = Array.from({ length: LIMITS.webLoginLinks + 1 }, () => logins.mintLink());
    expect(logins.redeem(links[0])).toBeNull();
    const sessions = [logins.redeem(links[1])!];
    for (let index = 0; index < LIMITS.webSessions; index++) sessions.push(logins.redeem(logins.mintLink())!);
    expect(logins.sessionOf(cookie(sessions[0]))).toBeNull();
    expect(logins.sessionOf(cookie(sessions.at(-1)!))).not.toBeNull();
  });
});
