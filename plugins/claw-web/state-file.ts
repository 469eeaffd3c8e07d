/**
 * Where a running dashboard says it listens: `web.json` in the gateway's
 * private runtime folder (0700, the file 0600), so `xdog claw web open` finds
 * it and nobody else can point it elsewhere. Written whole (temp file, then
 * rename) and removed on close, only when it is still this process's.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { ErrorCodes, XdogError } from '../../core/errors.js';
import { readRegularFileSync } from '../../core/bounded-read.js';
import { checkRuntimeDir, ensurePrivateDir } from '../../core/rpc/index.js';
import type { GatewayLocations } from '../claw-gateway/tokens.js';

const WebState = z.object({ pid: z.number().int(), url: z.string().url(), exposed: z.boolean() });
export type WebState = z.infer<typeof WebState>;

export const webStateFile = (locations: GatewayLocations): string => path.join(locations.runtimeDir, 'web.json');

export function writeWebState(locations: GatewayLocations, state: WebState): void {
  ensurePrivateDir(locations.runtimeDir);
  const file = webStateFile(locations);
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, `${JSON.stringify(state)}\n`, { mode: 0o600 });
  fs.renameSync(temp, file);
}

export function removeWebState(locations: GatewayLocations): void {
  const file = webStateFile(locations);
  try {
    if (readWebState(locations).pid === process.pid) fs.rmSync(file, { force: true });
  } catch {
    // gone or not ours: leave it
  }
}

/** The running dashboard's state; UNAVAILABLE with the fix when none runs. */
export function readWebState(locations: GatewayLocations): WebState {
  checkRuntimeDir(locations.runtimeRoot, locations.runtimeDir);
  const file = webStateFile(locations);
  if (!fs.existsSync(file)) throw new XdogError(ErrorCodes.UNAVAILABLE, 'no dashboard is running', { hint: 'start it with `xdog claw web` (it prints a login link itself)' });
  const stat = fs.lstatSync(file);
  if (!stat.isFile() || stat.uid !== process.getuid?.() || (stat.mode & 0o077) !== 0) {
    throw new XdogError(ErrorCodes.INVALID_STATE, `${file} is not a private file of yours`, { hint: `remove ${file} and start the dashboard again` });
  }
  const parsed = WebState.safeParse(JSON.parse(readRegularFileSync(file, { maxBytes: 4096, what: 'dashboard state file' }).toString('utf8')));
  if (!parsed.success) throw new XdogError(ErrorCodes.INVALID_STATE, `${file} is damaged`, { hint: `remove ${file} and start the dashboard again` });
  return parsed.data;
}

/** The running dashboard's state for `xdog claw status`, or null when none runs (no file, or its process is gone). */
export function runningWebState(locations: GatewayLocations): WebState | null {
  let state: WebState;
  try {
    state = readWebState(locations);
  } catch {
    return null;
  }
  try {
    process.kill(state.pid, 0);
    return state;
  } catch {
    return null;
  }
}
