/**
 * The runtime root `<tmpdir>/xdog-<uid>/` (used when XDG_RUNTIME_DIR is not
 * set) sits in a directory every user can write: another user may make it
 * first, open to all, or plant a symlink there. The built gateway and the
 * built CLI both refuse it, naming the path and the fix, instead of serving
 * or reading a token in it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { clawSandbox, connect, startGateway, type ClawSandbox } from '../support/claw.js';

/** A sandbox without XDG_RUNTIME_DIR, whose temp directory (TMPDIR) is its own: the runtime root is `<TMPDIR>/xdog-<uid>`. */
function tmpdirSandbox(): { sandbox: ClawSandbox; root: string } {
  const base = clawSandbox();
  const tmp = path.join(base.root, 'tmp');
  fs.mkdirSync(tmp, { mode: 0o1777 });
  fs.chmodSync(tmp, 0o1777);
  const env = { ...base.env, XDG_RUNTIME_DIR: '', TMPDIR: tmp };
  const root = path.join(tmp, `xdog-${os.userInfo().uid}`);
  return { sandbox: { ...base, env, locations: { ...base.locations, runtimeRoot: root, runtimeDir: path.join(root, 'claw'), socket: path.join(root, 'claw', 'gateway.sock'), token: path.join(root, 'claw', 'token') } }, root };
}

/** Starts the gateway and expects it to refuse; returns its log. */
async function refusedStart(sandbox: ClawSandbox): Promise<string> {
  const outcome = await startGateway(sandbox, 60_000).then(
    async (gateway) => {
      await gateway.stop();
      return 'the gateway started';
    },
    (error: Error) => error.message,
  );
  expect(outcome).toContain('exited');
  return outcome;
}

describe('the runtime directory under the temp directory', { timeout: 180_000 }, () => {
  it('is made 0700 by the gateway, and a client finds the gateway in it', async () => {
    const { sandbox, root } = tmpdirSandbox();
    const gateway = await startGateway(sandbox);
    try {
      expect(fs.statSync(root).mode & 0o777).toBe(0o700);
      const client = await connect(sandbox);
      await client.close();
    } finally {
      await gateway.stop();
    }
  });

  it('is refused when someone made it open to all (0777), by the gateway and by the CLI, naming the path and the fix', async () => {
    const { sandbox, root } = tmpdirSandbox();
    fs.mkdirSync(root);
    fs.chmodSync(root, 0o777);
    const log = await refusedStart(sandbox);
    expect(log).toContain(`the runtime directory ${root} has mode 0777, not 0700 [INVALID_STATE]`);
    expect(log).toContain(`chmod 700 ${root}`);
    const status = runCli(['claw', 'status'], { env: sandbox.env, cwd: sandbox.root });
    expect(status.status).toBe(1);
    expect(status.stderr).toContain(`the runtime directory ${root} has mode 0777, not 0700 [INVALID_STATE]`);
    expect(fs.statSync(root).mode & 0o777).toBe(0o777);
    expect(fs.readdirSync(root)).toEqual([]);
  });

  it('is refused when it is a symlink, even to a private directory, by the gateway and by the CLI', async () => {
    const { sandbox, root } = tmpdirSandbox();
    const planted = path.join(sandbox.root, 'planted');
    fs.mkdirSync(planted, { mode: 0o700 });
    fs.symlinkSync(planted, root);
    const log = await refusedStart(sandbox);
    expect(log).toContain(`the runtime directory ${root} is a symlink [INVALID_STATE]`);
    expect(log).toContain(`rm ${root}`);
    const send = runCli(['claw', 'send', 'hello'], { env: sandbox.env, cwd: sandbox.root });
    expect(send.status).toBe(1);
    expect(send.stderr).toContain(`the runtime directory ${root} is a symlink [INVALID_STATE]`);
    expect(fs.readdirSync(planted)).toEqual([]);
  });

  it.skipIf(process.getuid?.() !== 0)('is refused when another user owns it, by the gateway and by the CLI', async () => {
    const { sandbox, root } = tmpdirSandbox();
    fs.mkdirSync(root, { mode: 0o700 });
    fs.chownSync(root, 65534, 65534);
    const log = await refusedStart(sandbox);
    expect(log).toContain(`the runtime directory ${root} belongs to uid 65534, not to you (uid 0) [INVALID_STATE]`);
    const status = runCli(['claw', 'status'], { env: sandbox.env, cwd: sandbox.root });
    expect(status.status).toBe(1);
    expect(status.stderr).toContain(`the runtime directory ${root} belongs to uid 65534`);
  });
});
