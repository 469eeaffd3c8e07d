/**
 * Rich extension command results in interactive `xdog agent chat` (a real
 * TTY through tmux, a real extension worker): a command typed by its public
 * name before any turn shows its text, image line and structured JSON;
 * `/artifact save PATH` writes it and `/artifact PATH` shows it again; none
 * of it reaches the model.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/cli.js';
import { tempDir, writeTree } from '../support/temp.js';
import { hasTmux, tmuxSession } from '../support/tmux.js';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const tty = tmuxSession(`xdog-e2e-results-${process.pid}`);
afterEach(() => tty.kill());

describe.skipIf(!hasTmux)('xdog agent chat: rich extension command results', { timeout: 120_000 }, () => {
  it('shows a rich result by its public name, saves it as an artifact and reads it back, without the model', async () => {
    const root = tempDir('xdog-e2e-tty-results-');
    writeTree(root, {
      'script.json': { responses: [{ text: 'the model answered' }] },
      'c/xdog/config.yaml': 'extensions: [reporter]\n',
      'node_modules/reporter/package.json': { name: 'reporter', version: '1.0.0', type: 'module', xdog: { extension: './index.js' } },
      'node_modules/reporter/index.js': [
        'export default (api) => {',
        `  api.command('report', { publicName: 'show-state', run: () => api.result({ text: 'chat report', image: { data: '${PNG}', mimeType: 'image/png' }, structured: { ok: false, count: 0 } }) });`,
        '};',
      ].join('\n'),
    });
    const log = path.join(root, 'faux.jsonl');
    const env = `XDG_CONFIG_HOME=${root}/c XDG_DATA_HOME=${root}/d XDOG_FAUX_SCRIPT=${root}/script.json XDOG_FAUX_LOG=${log} OCLIF_SKIP_NEW_VERSION_CHECK=1`;
    tty.start(`cd ${root} && env ${env} ${process.execPath} ${path.join(repoRoot, 'bin/run.js')} agent chat faux/demo --no-tools; echo EXIT=$?; sleep 60`);
    await tty.waitFor('xdog chat with faux/demo');

    tty.keys('/show-state', 'Enter');
    const shown = await tty.waitFor('"count": 0');
    expect(shown).toContain('/show-state from extension reporter (command report):\nchat report');
    expect(shown).toMatch(/\[image image\/png, 70 bytes, sha256 [0-9a-f]{16}\]/);
    expect(shown).not.toContain(PNG.slice(0, 24));

    const file = path.join(root, 'chat.artifact.json');
    tty.keys(`/artifact save ${file}`, 'Enter');
    await tty.waitFor('saved the result of /show-state (extension reporter)');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    tty.keys(`/artifact ${file}`, 'Enter');
    const read = await tty.waitFor(`artifact ${file} from extension reporter (command report):`);
    expect(read.slice(read.lastIndexOf(`artifact ${file} from`))).toContain('chat report');

    tty.keys('C-c');
    expect(await tty.waitFor('EXIT=')).toContain('EXIT=0');
    expect(fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '').toBe('');
  });
});
