/** `xdog agent login` typing a key on a real TTY (tmux): hidden input, and Ctrl+C answers instead of hanging. */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/cli.js';
import { tempDir } from '../support/temp.js';
import { hasTmux, tmuxSession } from '../support/tmux.js';

const tty = tmuxSession(`xdog-e2e-login-${process.pid}`);
const waitFor = tty.waitFor;

afterEach(() => tty.kill());

/** Starts `xdog agent login openai` in tmux with a private config home; returns where credentials go. */
function startLogin(): string {
  const root = tempDir('xdog-e2e-login-');
  const env = `XDG_CONFIG_HOME=${root}/c XDG_DATA_HOME=${root}/d OCLIF_SKIP_NEW_VERSION_CHECK=1`;
  const command = `cd ${root} && env ${env} ${process.execPath} ${path.join(repoRoot, 'bin/run.js')} agent login openai; echo EXIT=$?; sleep 60`;
  tty.start(command, { width: 160, height: 20 });
  return path.join(root, 'c/xdog/credentials.json');
}

describe.skipIf(!hasTmux)('xdog agent login on a TTY', { timeout: 60_000 }, () => {
  it('takes a key without echoing it', async () => {
    const credentials = startLogin();
    await waitFor('API key for openai:');
    tty.keys('sk-e2e-hidden-key', 'Enter');
    const end = await waitFor('EXIT=');
    expect(end).toContain('EXIT=0');
    expect(end).not.toContain('sk-e2e-hidden-key');
    expect(JSON.parse(fs.readFileSync(credentials, 'utf8'))).toMatchObject({ openai: { type: 'api_key', key: 'sk-e2e-hidden-key' } });
  });

  it('Ctrl+C at the prompt ends with one error line and exit 1, storing nothing', async () => {
    const credentials = startLogin();
    await waitFor('API key for openai:');
    tty.keys('sk-partial');
    tty.keys('C-c');
    const end = await waitFor('EXIT=');
    expect(end).toContain('xdog: cancelled at the prompt; nothing was stored [ABORTED]');
    expect(end).toContain('EXIT=1');
    expect(fs.existsSync(credentials)).toBe(false);
  });
});
