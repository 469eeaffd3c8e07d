/**
 * The dashboard as a gateway service (`claw.web`): the built gateway serves
 * it from its start, `xdog claw web open` gets a link from it and `xdog claw
 * status` names it; the login it gives opens a session whose calls reach the
 * gateway through its socket; stopping the gateway stops the dashboard. A
 * port already taken fails the gateway's start, naming the setting to change.
 */
import fs from 'node:fs';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { webStateFile } from '../../plugins/claw-web/state-file.js';
import { clawSandbox, startGateway } from '../support/claw.js';
import { runCli } from '../support/cli.js';

describe('claw.web: the dashboard as a gateway service', { timeout: 180_000 }, () => {
  it('starts and stops with the gateway, gives login links, and bridges a logged-in page to the gateway', async () => {
    const sandbox = clawSandbox('  web: { port: 0 }\n');
    const gateway = await startGateway(sandbox, 60_000);
    try {
      expect(gateway.log()).toMatch(/web: ready: http:\/\/127\.0\.0\.1:\d+/);
      const status = runCli(['claw', 'status'], { env: sandbox.env, cwd: sandbox.root });
      expect(status.stdout).toMatch(new RegExp(`^web: dashboard at http://127\\.0\\.0\\.1:\\d+ \\(pid ${gateway.child.pid}\\)$`, 'm'));
      const opened = runCli(['claw', 'web', 'open', '--print'], { env: sandbox.env, cwd: sandbox.root });
      expect(opened.status, opened.stderr).toBe(0);
      const link = new URL(opened.stdout.trim());
      const origin = link.origin;
      const login = await fetch(`${origin}/api/login`, { method: 'POST', headers: { origin, 'content-type': 'application/json' }, body: JSON.stringify({ token: link.hash.slice(1) }) });
      expect(login.status).toBe(200);
      const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
      const call = await fetch(`${origin}/api/call`, { method: 'POST', headers: { origin, cookie, 'content-type': 'application/json' }, body: JSON.stringify({ method: 'group.status', params: { group: 'main' } }) });
      expect(call.status).toBe(200);
      expect(((await call.json()) as { result: { group?: string; busy: boolean } }).result).toMatchObject({ busy: false });
      // The service is only a client: the gateway's own checks answer (an unknown group is its NOT_FOUND).
      const refused = await fetch(`${origin}/api/call`, { method: 'POST', headers: { origin, cookie, 'content-type': 'application/json' }, body: JSON.stringify({ method: 'group.status', params: { group: 'nope' } }) });
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/nope/);

      expect(await gateway.stop()).toBe(0);
      expect(fs.existsSync(webStateFile(sandbox.locations))).toBe(false);
      await expect(fetch(`${origin}/api/hello`, { headers: { cookie } })).rejects.toThrow();
    } finally {
      await gateway.stop();
    }
  });

  it('a port already taken fails the gateway start, naming claw.web.port', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      const sandbox = clawSandbox(`  web: { port: ${port} }\n`);
      await expect(startGateway(sandbox, 60_000)).rejects.toThrow(new RegExp(`port ${port} on 127\\.0\\.0\\.1 is in use.*claw\\.web\\.port`, 's'));
    } finally {
      taken.close();
    }
  });
});
