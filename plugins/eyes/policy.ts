/**
 * The host's navigation policy: pages load only from loopback and the hosts
 * in `eyes.allow_hosts`, and `file://` only under the caller's workspace.
 * The daemon checks every request a page makes (checkUrl); redirects, which
 * Chromium follows on its own, meet the same list at the browser's network
 * layer (every other host goes to a proxy that does not exist). Policy, not a
 * sandbox: a page still runs its scripts in Chromium.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ErrorCodes, XdogError } from '../../core/errors.js';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** True for a loopback host name or address. */
export function isLoopback(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname) || hostname.endsWith('.localhost');
}

function hostAllowed(url: URL, allowHosts: readonly string[]): boolean {
  if (isLoopback(url.hostname)) return true;
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return allowHosts.some((entry) => {
    const [pattern, wantPort] = entry.split(':') as [string, string | undefined];
    if (wantPort !== undefined && wantPort !== port) return false;
    return pattern.startsWith('*.') ? url.hostname.endsWith(pattern.slice(1)) : url.hostname === pattern;
  });
}

/** The real path of `file`, or of its nearest existing parent plus the rest (symlinks cannot lead out). */
function realPathOf(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    const parent = path.dirname(file);
    return parent === file ? file : path.join(realPathOf(parent), path.basename(file));
  }
}

/** True when `file` is `workspace` or inside it, after resolving symlinks. */
export function isUnder(file: string, workspace: string): boolean {
  const real = realPathOf(path.resolve(file));
  const root = realPathOf(workspace);
  return real === root || real.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

/** Why `raw` may not be loaded, or undefined when it may. */
export function urlProblem(raw: string, policy: { allowHosts: readonly string[]; workspace: string }): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `${JSON.stringify(raw.slice(0, 200))} is not a URL`;
  }
  if (url.protocol === 'about:' && (url.href === 'about:blank' || url.href === 'about:srcdoc')) return undefined;
  if (url.protocol === 'data:' || url.protocol === 'blob:') return undefined;
  if (url.protocol === 'file:') {
    const file = fileURLToPath(url);
    return isUnder(file, policy.workspace) ? undefined : `${file} is outside the workspace ${policy.workspace} (file:// pages are allowed only under it)`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `the ${url.protocol} scheme is not allowed (only http, https and file under the workspace)`;
  if (hostAllowed(url, policy.allowHosts)) return undefined;
  return `the host ${url.host} is not allowed (loopback${policy.allowHosts.length ? ` and ${policy.allowHosts.join(', ')}` : ' only'})`;
}

/** Throws INVALID_ARGUMENT (with the fix) when `raw` may not be loaded. */
export function checkUrl(raw: string, policy: { allowHosts: readonly string[]; workspace: string }): void {
  const problem = urlProblem(raw, policy);
  if (problem) {
    throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `Eyes refused ${raw.slice(0, 300)}: ${problem}`, {
      hint: 'the user may add the host to eyes.allow_hosts in the config (then `xdog eyes stop` so the daemon restarts with it)',
    });
  }
}

/** Chromium's proxy settings that send every host but loopback and the allowed ones nowhere (redirects included). */
export function networkGuard(allowHosts: readonly string[]): { server: string; bypass: string } {
  const hosts = ['localhost', '127.0.0.1', '[::1]', '*.localhost', ...allowHosts.map((entry) => entry.split(':')[0]!)];
  // Port 9 (discard) on loopback: nothing listens, so a proxied request fails at once.
  return { server: 'http://127.0.0.1:9', bypass: [...new Set(hosts)].join(',') };
}
