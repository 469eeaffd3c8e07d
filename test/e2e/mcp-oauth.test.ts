/**
 * MCP OAuth through the built CLI against a real authorization server run in
 * this process (the SDK's auth router, test/plugins/mcp/oauth-server.ts):
 * dynamic registration, PKCE S256 with state and resource, the loopback
 * redirect, a forged state and a widened scope refused (nothing saved), a
 * token that expires and is refreshed only when asked, the 0600 file store,
 * nothing written without mcp_credential_backend, and a claw gateway that
 * connects the server after a restart with no new login.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOAuthMcpServer } from '../plugins/mcp/oauth-server.js';
import { clawSandbox, collect, connect, startGateway, until } from '../support/claw.js';
import { repoRoot, runCliAsync, type CliResult } from '../support/cli.js';
import { tempDir } from '../support/temp.js';

describe('xdog mcp login (OAuth 2.1 + PKCE against a real authorization server)', { timeout: 300_000 }, () => {
  let server: Awaited<ReturnType<typeof startOAuthMcpServer>>;
  let root: string;
  let env: NodeJS.ProcessEnv;
  const configFile = () => env.XDOG_CONFIG!;
  const credentials = () => path.join(root, 'state', 'xdog', 'mcp-credentials');
  const writeConfig = (extra = '', oauth = '{ scopes: [mcp:tools] }', backend = 'mcp_credential_backend: file\n') =>
    fs.writeFileSync(configFile(), `${backend}mcp_servers:\n  remote:\n    transport: http\n    url: ${server.url}\n    timeout: 20\n    oauth: ${oauth}\n${extra}`);
  const xdog = (...args: string[]): Promise<CliResult> => runCliAsync(args, { env, cwd: root });

  /** Runs `xdog mcp login remote`, plays the browser (the server approves at once), maybe tampering with the answer. */
  async function login(tamper?: (answer: URL) => void): Promise<CliResult & { authorizationUrl: URL }> {
    const child = spawn(process.execPath, [path.join(repoRoot, 'bin/run.js'), 'mcp', 'login', 'remote', '--timeout', '60'], { env: { ...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: '1', ...env }, cwd: root });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    await until(() => /^http:\/\/127\.0\.0\.1:\d+\/authorize\S+$/m.test(stderr) || child.exitCode !== null, `the authorization URL:\n${stderr}`, 60_000);
    const authorizationUrl = new URL(/^http:\/\/127\.0\.0\.1:\d+\/authorize\S+$/m.exec(stderr)![0]);
    const approved = await fetch(authorizationUrl, { redirect: 'manual' });
    const answer = new URL(approved.headers.get('location')!);
    tamper?.(answer);
    await (await fetch(answer)).text();
    const status = await exited;
    return { status, stdout, stderr, authorizationUrl };
  }

  beforeAll(async () => {
    server = await startOAuthMcpServer();
    root = tempDir('xdog-mcp-oauth-');
    env = {
      XDOG_CONFIG: path.join(root, 'config.yaml'),
      XDG_STATE_HOME: path.join(root, 'state'),
      XDG_DATA_HOME: path.join(root, 'data'),
      XDG_CONFIG_HOME: path.join(root, 'config'),
      XDG_RUNTIME_DIR: path.join(root, 'run'),
    };
  });
  afterAll(async () => {
    await server?.close();
  });

  it('keeps nothing unless a backend is configured, and refuses a literal client secret', async () => {
    writeConfig('', '{ scopes: [mcp:tools] }', '');
    const refused = await xdog('mcp', 'login', 'remote');
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('no MCP credential store is configured');
    const tools = await xdog('mcp', 'tools', 'remote');
    expect(tools.status).not.toBe(0);
    expect(tools.stderr).toContain('needs an OAuth login, and no credentials are kept (mcp_credential_backend is not set)');
    expect(fs.existsSync(credentials())).toBe(false);

    writeConfig('', '{ client_id: abc, client_secret: s3cret }');
    const secret = await xdog('mcp', 'list');
    expect(secret.status).not.toBe(0);
    expect(secret.stderr).toContain('a literal client secret is not allowed in the config file; put it in an environment variable and name that in client_secret_env');
    expect(secret.stderr).not.toContain('s3cret');
  });

  it('logs in with dynamic registration and PKCE, refuses a forged state and a widened scope, and refreshes only when asked', async () => {
    writeConfig();
    const first = await login();
    expect(first.status, first.stderr).toBe(0);
    const query = first.authorizationUrl.searchParams;
    expect(query.get('code_challenge_method')).toBe('S256');
    expect(query.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(query.get('state')).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(query.get('resource')).toBe(server.url);
    expect(query.get('scope')).toBe('mcp:tools');
    expect(query.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect([...server.provider.clients.values()].map((client) => client.client_id)).toEqual([query.get('client_id')]);
    expect(first.stdout).toBe(`logged in to remote (issuer ${server.issuer}/, scope mcp:tools); saved in ${credentials()}\n`);

    // The file store: a 0700 directory, a 0600 file; auth-status shows no token.
    const file = path.join(credentials(), 'remote.json');
    expect(fs.statSync(credentials()).mode & 0o777).toBe(0o700);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const status = await xdog('mcp', 'auth-status', 'remote', '--json');
    expect(JSON.parse(status.stdout)).toMatchObject({ loggedIn: true, backend: 'file', scope: 'mcp:tools', refreshable: true, expired: false });
    const saved = JSON.parse(fs.readFileSync(file, 'utf8')) as { tokens: { access_token: string; refresh_token: string } };
    expect(status.stdout).not.toContain(saved.tokens.access_token);
    expect(status.stdout).not.toContain(saved.tokens.refresh_token);

    const call = await xdog('mcp', 'call', 'remote', 'whoami');
    expect(call.status, call.stderr).toBe(0);
    expect(call.stdout).toContain(`client ${query.get('client_id')} scopes mcp:tools`);

    // A forged state and a widened grant are refused; the saved login stays as it was.
    const before = fs.readFileSync(file, 'utf8');
    const forged = await login((answer) => answer.searchParams.set('state', 'forged-state'));
    expect(forged.status).toBe(1);
    expect(forged.stderr).toContain('the OAuth answer carries a state that this login did not send; it was refused and nothing was saved');
    server.provider.widenNext = 'admin';
    const widened = await login();
    expect(widened.status).toBe(1);
    expect(widened.stderr).toContain('granted scopes beyond those asked for (admin); the tokens were refused and nothing was saved');
    expect(fs.readFileSync(file, 'utf8')).toBe(before);

    // The token expires: the call fails and says how to refresh; nothing refreshed by itself.
    server.provider.expireAll();
    const expired = await xdog('mcp', 'call', 'remote', 'whoami');
    expect(expired.status).not.toBe(0);
    expect(expired.stderr).toContain('refused the request (HTTP 401)');
    expect(expired.stderr).toContain('xdog mcp login SERVER --refresh');
    expect(server.provider.grants).not.toContain('refresh_token');
    const refreshed = await xdog('mcp', 'login', 'remote', '--refresh');
    expect(refreshed.status, refreshed.stderr).toBe(0);
    expect(server.provider.grants.filter((grant) => grant === 'refresh_token')).toHaveLength(1);
    expect((await xdog('mcp', 'call', 'remote', 'whoami')).stdout).toContain('scopes mcp:tools');

    expect((await xdog('mcp', 'logout', 'remote')).stdout).toBe('forgot the login of remote\n');
    expect(fs.existsSync(file)).toBe(false);
  });

  it('a claw gateway connects a logged-in server, and again after a restart with no new login', async () => {
    const sandbox = clawSandbox(`      mcp_servers: [remote]\nmcp_credential_backend: file\nmcp_servers:\n  remote:\n    transport: http\n    url: ${server.url}\n    timeout: 20\n    allow_tools: true\n    oauth: { scopes: [mcp:tools] }\n`);
    env = { ...sandbox.env, XDG_STATE_HOME: path.join(root, 'state') };
    sandbox.env.XDG_STATE_HOME = env.XDG_STATE_HOME;
    const logins = server.provider.grants.filter((grant) => grant === 'authorization_code').length;
    expect((await login()).status).toBe(0);
    for (let round = 0; round < 2; round++) {
      const gateway = await startGateway(sandbox);
      try {
        const connected = await runCliAsync(['claw', 'mcp', 'connect', 'remote'], { env: sandbox.env, cwd: sandbox.root });
        expect(connected.status, connected.stderr + gateway.log()).toBe(0);
        expect(connected.stdout).toMatch(/^connected: remote {2}connected {2}http /);
      } finally {
        await gateway.stop();
      }
    }
    expect(server.provider.grants.filter((grant) => grant === 'authorization_code').length).toBe(logins + 1);

    // A login started from a client (mcp.authorize, what /mcp authorize sends): the gateway answers the URL and waits for the browser.
    expect((await xdog('mcp', 'logout', 'remote')).status).toBe(0);
    const gateway = await startGateway(sandbox);
    const client = await connect(sandbox);
    try {
      const refused = await runCliAsync(['claw', 'mcp', 'connect', 'remote'], { env: sandbox.env, cwd: sandbox.root });
      expect(refused.stderr).toContain('MCP server "remote" is not logged in');
      const authorized = collect(client, 'mcp.authorized');
      await client.call('subscribe', {});
      const { authorizationUrl } = (await client.callService('mcp.authorize', { server: 'remote' })) as { authorizationUrl: string };
      const approved = await fetch(authorizationUrl, { redirect: 'manual' });
      await (await fetch(approved.headers.get('location')!)).text();
      await until(() => authorized.length === 1, 'the login to end');
      expect(authorized[0]).toMatchObject({ group: 'main', server: 'remote', status: 'authorized' });
      const connected = await runCliAsync(['claw', 'mcp', 'connect', 'remote'], { env: sandbox.env, cwd: sandbox.root });
      expect(connected.status, connected.stderr).toBe(0);
    } finally {
      await client.close();
      await gateway.stop();
    }
  });
});
