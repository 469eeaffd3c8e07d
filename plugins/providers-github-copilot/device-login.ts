/**
 * GitHub's OAuth device flow, as Copilot clients use it: ask for a device
 * code, show the user a URL and a code, poll until they approve, and return
 * the GitHub token. Nothing is opened or stored here; the caller stores it.
 */
import { ErrorCodes, XdogError } from '../../core/index.js';
import { sleep } from '../providers-shared/index.js';

/** The public OAuth client id of the Copilot editor integrations (a device-flow client id, not a secret). */
export const COPILOT_CLIENT_ID = 'Iv1.b507a08c87ecfe98';

export interface DeviceLoginOptions {
  /** Default https://github.com. */
  githubUrl?: string;
  clientId?: string;
  scope?: string;
  /** Shows the user where to go and what to type. */
  onCode(code: { userCode: string; verificationUri: string; expiresInSeconds: number }): void;
  signal?: AbortSignal;
}

interface DeviceCodeResponse {
  device_code: string;
  user_code: string;
  verification_uri: string;
  expires_in: number;
  interval?: number;
}

async function postForm(url: string, body: Record<string, string>, signal?: AbortSignal): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal,
  });
  if (!response.ok) {
    throw new XdogError(ErrorCodes.AUTH_FAILED, `GitHub answered HTTP ${response.status} at ${new URL(url).pathname}`, { hint: 'try again later' });
  }
  return (await response.json()) as Record<string, unknown>;
}

/** Runs the device flow to completion; resolves with the GitHub token. */
export async function deviceCodeLogin(options: DeviceLoginOptions): Promise<string> {
  const github = (options.githubUrl ?? 'https://github.com').replace(/\/+$/, '');
  const clientId = options.clientId ?? COPILOT_CLIENT_ID;
  const code = (await postForm(`${github}/login/device/code`, { client_id: clientId, scope: options.scope ?? 'read:user' }, options.signal)) as unknown as DeviceCodeResponse;
  if (!code.device_code || !code.user_code || !code.verification_uri) {
    throw new XdogError(ErrorCodes.AUTH_FAILED, 'GitHub did not return a device code', { hint: 'try again later' });
  }
  options.onCode({ userCode: code.user_code, verificationUri: code.verification_uri, expiresInSeconds: code.expires_in });
  let intervalMs = (code.interval ?? 5) * 1000;
  const deadline = Date.now() + code.expires_in * 1000;
  while (Date.now() < deadline) {
    await sleep(intervalMs, options.signal);
    const answer = await postForm(
      `${github}/login/oauth/access_token`,
      { client_id: clientId, device_code: code.device_code, grant_type: 'urn:ietf:params:oauth:grant-type:device_code' },
      options.signal,
    );
    if (typeof answer.access_token === 'string' && answer.access_token) return answer.access_token;
    switch (answer.error) {
      case 'authorization_pending':
        continue;
      case 'slow_down':
        intervalMs = typeof answer.interval === 'number' ? answer.interval * 1000 : intervalMs + 5000;
        continue;
      case 'expired_token':
        throw new XdogError(ErrorCodes.AUTH_FAILED, 'the login code expired before it was approved', { hint: 'run xdog agent login copilot again' });
      case 'access_denied':
        throw new XdogError(ErrorCodes.AUTH_FAILED, 'the login was denied on GitHub', { hint: 'run xdog agent login copilot again and approve it' });
      default:
        throw new XdogError(ErrorCodes.AUTH_FAILED, `GitHub refused the login: ${String(answer.error ?? 'no token in the answer')}`, {
          hint: 'run xdog agent login copilot again',
        });
    }
  }
  throw new XdogError(ErrorCodes.AUTH_FAILED, 'the login code expired before it was approved', { hint: 'run xdog agent login copilot again' });
}
