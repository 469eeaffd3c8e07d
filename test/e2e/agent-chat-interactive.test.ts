/** Interactive `xdog agent chat` on a real TTY, driven through tmux. */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/cli.js';
import { tempDir, writeTree } from '../support/temp.js';
import { hasTmux, tmuxSession } from '../support/tmux.js';

const tty = tmuxSession(`xdog-e2e-${process.pid}`);
const waitFor = tty.waitFor;

afterEach(() => tty.kill());

describe.skipIf(!hasTmux)('xdog agent chat on a TTY', { timeout: 120_000 }, () => {
  it('streams answers, takes /steer and /follow-up mid-run, aborts on Ctrl+C and exits on the second', async () => {
    const root = tempDir('xdog-e2e-tty-');
    writeTree(root, {
      'script.json': {
        responses: [{ delayMs: 1500, text: 'first answer' }, { text: 'saw the steer' }, { text: 'did the follow-up' }, { delayMs: 60_000, text: 'never shown' }, { text: 'after the abort' }],
      },
    });
    const env = `XDG_CONFIG_HOME=${root}/c XDG_DATA_HOME=${root}/d XDOG_FAUX_SCRIPT=${root}/script.json OCLIF_SKIP_NEW_VERSION_CHECK=1`;
    const command = `cd ${root} && env ${env} ${process.execPath} ${path.join(repoRoot, 'bin/run.js')} agent chat faux/demo --no-tools; echo EXIT=$?; sleep 60`;
    tty.start(command);
    await waitFor('xdog chat with faux/demo');

    tty.keys('go', 'Enter');
    await waitFor('> go');
    tty.keys('/steer also this', 'Enter');
    tty.keys('/follow-up and then', 'Enter');
    const afterRun = await waitFor('did the follow-up');
    const order = ['first answer', '[steer] also this', 'saw the steer', '[follow-up] and then', 'did the follow-up'].map((text) => afterRun.indexOf(text));
    expect(order.every((at, index) => at >= 0 && (index === 0 || at > order[index - 1]!))).toBe(true);

    tty.keys('take forever', 'Enter');
    await waitFor('> take forever');
    tty.keys('C-c');
    await waitFor('(aborted)');
    tty.keys('again', 'Enter');
    await waitFor('after the abort');
    tty.keys('C-c');
    const end = await waitFor('EXIT=');
    expect(end).toContain('EXIT=0');
    expect(end).not.toContain('never shown');
  });

  it('lists extensions with /extensions, runs and Tab-completes /ext-ID-NAME, and unloads one', async () => {
    const root = tempDir('xdog-e2e-tty-ext-');
    writeTree(root, {
      'script.json': { responses: [{ text: 'unused' }] },
      'c/xdog/config.yaml': 'extensions: [probe]\n',
      'node_modules/probe/package.json': { name: 'probe', version: '1.0.0', type: 'module', xdog: { extension: './index.js' } },
      'node_modules/probe/index.js': [
        'export default (api) => {',
        "  api.command('hello', { description: 'greets', run: (args) => 'hello ' + args, complete: (prefix) => ['world', 'there'].filter((word) => word.startsWith(prefix)) });",
        "  api.status('mood', 'cheerful');",
        '};',
      ].join('\n'),
    });
    const env = `XDG_CONFIG_HOME=${root}/c XDG_DATA_HOME=${root}/d XDOG_FAUX_SCRIPT=${root}/script.json OCLIF_SKIP_NEW_VERSION_CHECK=1`;
    tty.start(`cd ${root} && env ${env} ${process.execPath} ${path.join(repoRoot, 'bin/run.js')} agent chat faux/demo --no-tools; echo EXIT=$?; sleep 60`);
    await waitFor('xdog chat with faux/demo');

    tty.keys('/extensions', 'Enter');
    const listed = await waitFor('status mood: cheerful');
    expect(listed).toContain('probe 1.0.0: active');
    expect(listed).toContain('commands: /ext-probe-hello');

    tty.keys('/ext-probe-hello w', 'Tab');
    await waitFor('/ext-probe-hello world');
    tty.keys('Enter');
    await waitFor('\nhello world');

    tty.keys('/ext-probe-nope', 'Enter');
    await waitFor('no extension command /ext-probe-nope');

    tty.keys('/extensions unload probe', 'Enter');
    await waitFor('probe 1.0.0: unloaded');
    tty.keys('C-c');
    expect(await waitFor('EXIT=')).toContain('EXIT=0');
  });
});
