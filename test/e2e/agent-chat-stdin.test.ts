/** A prompt piped on stdin: read asynchronously (a slow writer is waited for) and bounded (an endless one is refused). */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../core/index.js';
import { repoRoot } from '../support/cli.js';
import { tempDir, writeTree } from '../support/temp.js';

function setup() {
  const root = tempDir('xdog-e2e-stdin-');
  writeTree(root, { 'script.json': { responses: [{ text: 'piped ok' }] } });
  const env = {
    ...process.env,
    OCLIF_SKIP_NEW_VERSION_CHECK: '1',
    XDG_CONFIG_HOME: path.join(root, 'config'),
    XDG_DATA_HOME: path.join(root, 'data'),
    XDOG_FAUX_SCRIPT: path.join(root, 'script.json'),
    XDOG_FAUX_LOG: path.join(root, 'requests.jsonl'),
  };
  return { root, env, log: env.XDOG_FAUX_LOG };
}

/** Runs `WRITER | xdog agent chat faux/demo --no-tools` through bash, so stdin is a real pipe. */
function pipeInto(writer: string, env: NodeJS.ProcessEnv) {
  const xdog = `'${process.execPath}' '${path.join(repoRoot, 'bin', 'run.js')}' agent chat faux/demo --no-tools`;
  // A generous process-level deadline: a hang fails the test, slowness does not.
  return spawnSync('bash', ['-c', `${writer} | ${xdog}`], { env, encoding: 'utf8', timeout: 90_000 });
}

describe('xdog agent chat with a piped prompt', { timeout: 120_000 }, () => {
  it('waits for a writer that starts late instead of failing with EAGAIN', () => {
    const { env, log } = setup();
    const result = pipeInto('(sleep 1; echo hi)', env);
    expect(result.stderr).not.toContain('EAGAIN');
    expect(result.status).toBe(0);
    expect(result.stdout).toBe('piped ok\n');
    expect(JSON.parse(fs.readFileSync(log, 'utf8').trim()).messages[0]).toMatchObject({ role: 'user', content: 'hi' });
  });

  // oclif itself reads stdin for a missing argument (unbounded, for 10 ms); with data already waiting it
  // would take it before xdog's bounded read, so both a flood and a ready one-line payload are tried.
  it.each(['yes', "head -c 2000000 /dev/zero | tr '\\0' y"])('refuses an over-limit stdin (%s) at the prompt limit, sending nothing to the model', (writer) => {
    const { env, log } = setup();
    const result = pipeInto(writer, env);
    expect(result.signal).toBeNull();
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`xdog: the prompt on stdin is over the limit of ${LIMITS.messageTextBytes} bytes [LIMIT_EXCEEDED]`);
    expect(fs.existsSync(log)).toBe(false);
  });
});
