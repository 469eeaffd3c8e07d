// The page's only ways to the server: calls of gateway methods (POST /api/call) and a
// group's events (GET /api/events, server-sent events). The session cookie goes along by itself.

export interface Problem {
  code: string;
  message: string;
  hint?: string;
}

export class ApiError extends Error {
  readonly code: string;
  readonly hint?: string;
  constructor(problem: Problem) {
    super(problem.message);
    this.code = problem.code;
    this.hint = problem.hint;
  }
}

async function post(path: string, body: unknown): Promise<any> {
  let response: Response;
  try {
    response = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), credentials: 'same-origin' });
  } catch {
    throw new ApiError({ code: 'UNAVAILABLE', message: 'the dashboard server does not answer', hint: 'is `xdog claw web` still running?' });
  }
  // Not the dashboard's JSON (a proxy's page, a cut connection): the server could not be used, which is not a bug here.
  const unusable = { code: 'UNAVAILABLE', message: `the dashboard server answered ${response.status} without its JSON`, hint: 'reload the page; if it stays, check that `xdog claw web` still runs' };
  const answer = await response.json().catch(() => ({ error: unusable }));
  if (!response.ok || answer.error) throw new ApiError(answer.error ?? unusable);
  return answer;
}

/** Calls a gateway method; a gateway error becomes an ApiError with its code, message and hint. */
export async function call<T = any>(method: string, params: Record<string, unknown> = {}): Promise<T> {
  return (await post('/api/call', { method, params })).result as T;
}

export async function login(token: string): Promise<void> {
  await post('/api/login', { token });
}

export async function logout(): Promise<void> {
  await post('/api/logout', {});
}

export interface Hello {
  capabilities: string[];
  methods: string[];
  web: { url: string; exposed: boolean; host: string };
}

/** What the gateway offers; null when this browser is not logged in. */
export async function hello(): Promise<Hello | null> {
  const response = await fetch('/api/hello', { credentials: 'same-origin' });
  if (response.status === 401) return null;
  const answer = await response.json();
  if (!response.ok) throw new ApiError(answer.error);
  return answer as Hello;
}

export type Listener = (name: string, data: any) => void;

const NAMES = ['subscribed', 'event', 'run.end', 'group.changed', 'notice', 'approval.requested', 'approval.resolved', 'schedule.run', 'todos.changed', 'goal.changed', 'mcp.changed', 'skills.changed', 'gone', 'cut', 'failed'];

/** Follows a group's events until the returned function is called; the browser reconnects a lost stream by itself. */
export function follow(group: string, listener: Listener): () => void {
  const source = new EventSource(`/api/events?group=${encodeURIComponent(group)}`);
  for (const name of NAMES) source.addEventListener(name, (event) => listener(name, JSON.parse((event as MessageEvent).data)));
  return () => source.close();
}

/**
 * Calls `reload` on each of the named events, and each time the stream is
 * subscribed (first and after every reconnect): what changed between a page's
 * first read and its subscription, or while the stream was down, is read again.
 */
export function reloadOn(group: string, names: readonly string[], reload: () => void): () => void {
  return follow(group, (name) => {
    if (name === 'subscribed' || names.includes(name)) reload();
  });
}

/** A key no other prompt has: the gateway recognises a resent prompt by it and runs it once. */
export function idempotencyKey(): string {
  return `web-${crypto.randomUUID()}`;
}

export function describe(error: unknown): string {
  if (error instanceof ApiError) return `${error.message}${error.hint ? ` (${error.hint})` : ''} [${error.code}]`;
  return String((error as Error)?.message ?? error);
}
