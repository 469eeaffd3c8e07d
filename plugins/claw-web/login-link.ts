/**
 * What `xdog claw web open` does: asks the running dashboard for a new
 * one-time login link, proving with the gateway's token (readable only by
 * this user) that it may. Bounded by a deadline; nothing is retried.
 */
import { ErrorCodes, XdogError } from '../../core/errors.js';
import { readToken } from '../../core/rpc/index.js';
import type { GatewayLocations } from '../claw-gateway/tokens.js';
import { readWebState } from './state-file.js';

export async function requestLoginLink(locations: GatewayLocations, timeoutMs = 10_000): Promise<{ url: string; exposed: boolean }> {
  const state = readWebState(locations);
  const token = readToken(locations.token);
  let response: Response;
  try {
    response = await fetch(`${state.url}/api/link`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    throw new XdogError(ErrorCodes.UNAVAILABLE, `the dashboard at ${state.url} (pid ${state.pid}) does not answer: ${(error as Error).message}`, { hint: 'start it again with `xdog claw web`' });
  }
  const body = (await response.json().catch(() => null)) as { url?: string; error?: { message?: string } } | null;
  if (!response.ok || typeof body?.url !== 'string') {
    throw new XdogError(ErrorCodes.UNAVAILABLE, `the dashboard at ${state.url} refused a login link: ${body?.error?.message ?? response.status}`, { hint: 'restart the dashboard (`xdog claw web`) after restarting the gateway' });
  }
  return { url: body.url, exposed: state.exposed };
}
