/**
 * Relative paths in the config file (claw.store.path, a group's workspace,
 * faux.script) mean files next to the config file, wherever the gateway and
 * the CLI run: a gateway started from another directory opens the same store,
 * never a second, empty one.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { clawSandbox, startGateway } from '../support/claw.js';

describe('relative paths in the claw config', { timeout: 180_000 }, () => {
  it('resolve against the config file folder, not the working directory of the gateway or the CLI', async () => {
    const base = clawSandbox();
    const conf = path.join(base.root, 'conf');
    fs.mkdirSync(conf);
    fs.writeFileSync(path.join(conf, 'script.json'), JSON.stringify({ responses: [{ text: 'first answer' }, { text: 'second answer' }] }));
    const configFile = path.join(conf, 'config.yaml');
    fs.writeFileSync(
      configFile,
      ['faux: { script: ./script.json }', 'claw:', '  store: { type: sqlite, path: ./store/claw.db }', '  groups:', '    main: { workspace: ../workspace, model: faux/demo }', ''].join('\n'),
    );
    const env: NodeJS.ProcessEnv = { ...base.env, XDOG_CONFIG: configFile };
    delete env.XDOG_FAUX_SCRIPT;
    const sandbox = { ...base, configFile, env };
    const elsewhere = path.join(base.root, 'elsewhere');
    fs.mkdirSync(elsewhere);

    // The gateway runs in base.root, the CLI in another folder: both find the files next to the config.
    let gateway = await startGateway(sandbox);
    try {
      const sent = runCli(['claw', 'send', 'hello'], { env, cwd: elsewhere });
      expect(sent.stderr).toBe('');
      expect(sent).toMatchObject({ status: 0, stdout: 'first answer\n' });
      const status = JSON.parse(runCli(['claw', 'status', '--json'], { env, cwd: elsewhere }).stdout);
      expect(status.store).toBe(path.join(conf, 'store', 'claw.db'));
      expect(status.groups[0].workspace).toBe(base.workspace);
    } finally {
      await gateway.stop();
    }
    expect(fs.existsSync(path.join(conf, 'store', 'claw.db'))).toBe(true);
    expect(fs.existsSync(path.join(base.root, 'store'))).toBe(false);

    // Started again from another folder, it opens the same store: the session is still there.
    gateway = await startGateway({ ...sandbox, root: elsewhere });
    try {
      const sessions = JSON.parse(runCli(['claw', 'sessions', 'list', '--json'], { env, cwd: base.root }).stdout);
      expect(sessions.sessions).toHaveLength(1);
      expect(sessions.sessions[0].messageCount).toBe(2);
    } finally {
      await gateway.stop();
    }
    expect(fs.existsSync(path.join(elsewhere, 'store'))).toBe(false);
  });
});
