/**
 * The checks every request to the dashboard passes before anything else
 * runs: its `Host` must be one of the names the server answers to (a DNS
 * rebinding page has its own name there), and a request that comes from a
 * page must come from the dashboard's own origin (CSRF; CVE-2026-25253 in
 * OpenClaw was exactly a missing Origin check). Pure functions, so the
 * server and the WebSocket-upgrade path share one decision.
 */
import type { IncomingHttpHeaders } from 'node:http';

/** Why a request is refused (status and a message a person can act on), or null when it may go on. */
export interface Refusal {
  status: number;
  message: string;
}

/** The `host:port` names the server answers to: the loopback names and the address it listens on. */
export function allowedHosts(host: string, port: number): Set<string> {
  const names = new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
  names.add(`${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${port}`.toLowerCase());
  return names;
}

/** The Host check (DNS rebinding): exactly one of `allowed`, compared without case. */
export function checkHost(headers: IncomingHttpHeaders, allowed: ReadonlySet<string>): Refusal | null {
  const host = headers.host?.toLowerCase();
  if (!host || !allowed.has(host)) {
    return { status: 421, message: `the Host ${JSON.stringify(headers.host ?? '')} is not one this dashboard answers to; open it at ${[...allowed][0]}` };
  }
  return null;
}

/**
 * The Origin check (CSRF). `sameOriginRequired`: the request must carry an
 * Origin equal to the dashboard's own (a page's fetch or upgrade does; a
 * browser sends Origin on every POST and WebSocket upgrade). Otherwise an
 * Origin, when present, must still be the dashboard's, and `Sec-Fetch-Site`
 * must say the request did not come from another site.
 */
export function checkOrigin(headers: IncomingHttpHeaders, allowed: ReadonlySet<string>, sameOriginRequired: boolean): Refusal | null {
  const origin = headers.origin;
  const site = headers['sec-fetch-site'];
  if (origin !== undefined) {
    const name = originHost(origin);
    if (name === null || !allowed.has(name) || name !== headers.host?.toLowerCase()) {
      return { status: 403, message: `requests from ${JSON.stringify(origin)} are refused: only the dashboard's own pages may call it` };
    }
  } else if (sameOriginRequired) {
    return { status: 403, message: 'this request has no Origin header; only the dashboard\'s own pages may call it' };
  }
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    return { status: 403, message: `a ${site} request is refused: only the dashboard's own pages may call it` };
  }
  return null;
}

/** `host:port` of an http origin (the port made explicit), or null for anything else ("null", https, garbage). */
function originHost(origin: string): string | null {
  try {
    const url = new URL(origin);
    if (url.protocol !== 'http:' || url.pathname !== '/' || url.username || url.password) return null;
    return `${url.hostname}:${url.port || '80'}`.toLowerCase();
  } catch {
    return null;
  }
}
