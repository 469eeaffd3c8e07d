/**
 * The Eyes daemon's process entry (spawned detached by `ensureEyesDaemon`,
 * its output appended to the log). Its allowed hosts come from
 * XDOG_EYES_ALLOW_HOSTS (JSON), set by the starter from its config.
 */
import fs from 'node:fs';
import { describeError, XdogError } from '../../core/errors.js';
import { EyesDaemon } from './daemon.js';

function allowHosts(): string[] {
  const raw = process.env.XDOG_EYES_ALLOW_HOSTS ?? '[]';
  const parsed: unknown = JSON.parse(raw);
  if (!Array.isArray(parsed) || !parsed.every((entry) => typeof entry === 'string')) throw new Error('XDOG_EYES_ALLOW_HOSTS must be a JSON array of host names');
  return parsed;
}

function version(): string {
  const pkg = JSON.parse(fs.readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version?: string };
  return pkg.version ?? '0.0.0';
}

try {
  const daemon = new EyesDaemon({ allowHosts: allowHosts(), version: version() });
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => void daemon.stop());
  await daemon.start();
  await daemon.stopped;
  process.exit(0);
} catch (error) {
  const hint = XdogError.is(error) && error.hint ? ` (${error.hint})` : '';
  const code = XdogError.is(error) ? ` [${error.code}]` : '';
  process.stderr.write(`xdog: ${describeError(error)}${code}${hint}\n`);
  process.exit(1);
}
