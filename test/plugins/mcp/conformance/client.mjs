// The MCP conformance runner's client under test: xdog's McpRegistry (from
// dist/) over Streamable HTTP. The runner passes the server URL as the last
// argument, the scenario in MCP_CONFORMANCE_SCENARIO and, for some auth
// scenarios, pre-registered client credentials in MCP_CONFORMANCE_CONTEXT.
// The client connects, calls every tool it discovers once with arguments made
// from the tool's required properties, and disconnects. An elicitation is
// accepted as the form offers it (a person pressing Enter on every field: xdog
// fills the defaults); it grants no sampling.
//
// A server that answers 401 gets what a person does by hand: `xdog mcp login`
// (loginMcpServer from plugins/mcp/oauth.ts: discovery, registration, PKCE,
// state and issuer checks, the loopback redirect), the browser played by a
// fetch of the authorization URL (the runner's authorization server redirects
// at once), the tokens saved in a file store in a temporary directory, and the
// connect made again with the saved login.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FileCredentialStore, McpRegistry, loadMcpOAuth } from '../../../../dist/plugins/mcp/index.js';

const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '(none)';
const context = process.env.MCP_CONFORMANCE_CONTEXT ? JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT) : {};
const SECRET_ENV = 'XDOG_CONFORMANCE_CLIENT_SECRET';
/** How long the "browser" may take to come back to the loopback redirect. */
const LOGIN_DEADLINE_MS = 60_000;

const SAMPLE = { number: 1, integer: 1, string: 'xdog', boolean: true, array: [], object: {} };

function argumentsFor(schema) {
  const args = {};
  for (const name of schema.required ?? []) {
    const type = schema.properties?.[name]?.type;
    args[name] = SAMPLE[Array.isArray(type) ? type[0] : type] ?? null;
  }
  return args;
}

/** The client id metadata document the runner's CIMD scenario expects a user to have published. */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';

/**
 * The oauth section a user would write for this server: pre-registered when
 * the runner gave a client, a client id metadata document for the CIMD
 * scenario, else dynamic registration.
 */
function oauthSection() {
  if (scenario === 'auth/basic-cimd') return { registration: 'metadata', client_metadata_url: CLIENT_METADATA_URL };
  if (!context.client_id) return {};
  if (context.client_secret) process.env[SECRET_ENV] = context.client_secret;
  return { registration: 'pre-registered', client_id: context.client_id, ...(context.client_secret ? { client_secret_env: SECRET_ENV } : {}) };
}

/** Plays the person's browser: opens the authorization URL and follows its redirects to xdog's loopback callback. */
async function openInBrowser(authorizationUrl) {
  const response = await fetch(authorizationUrl, { redirect: 'follow', signal: AbortSignal.timeout(LOGIN_DEADLINE_MS) });
  await response.body?.cancel();
}

async function run(registry) {
  await registry.connect('peer');
  for (const tool of registry.tools('peer')) {
    const result = await registry.callTool('peer', tool.name, argumentsFor(tool.inputSchema));
    process.stdout.write(`[${scenario}] ${tool.name}: ${result.isError ? 'error result' : 'ok'}\n`);
  }
}

const handlers = { elicit: async () => ({ action: 'accept', content: {} }) };
const base = { transport: 'http', url, timeout: 60 };
const credentialsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'xdog-conformance-'));
const credentials = new FileCredentialStore(path.join(credentialsDir, 'mcp'));
let registry = new McpRegistry({ handlers });
registry.register('peer', base);
let failed = false;
try {
  try {
    await run(registry);
  } catch (error) {
    if (error.code !== 'AUTH_FAILED') throw error;
    // The server wants a login: the explicit one, then a connect with its token.
    await registry.close();
    const config = { ...base, oauth: oauthSection() };
    const { loginMcpServer } = await loadMcpOAuth();
    let opened;
    await loginMcpServer('peer', config, credentials, { onAuthorizationUrl: (authorizationUrl) => void (opened = openInBrowser(authorizationUrl)), deadlineMs: LOGIN_DEADLINE_MS });
    await opened;
    process.stdout.write(`[${scenario}] logged in after: ${error.message}\n`);
    registry = new McpRegistry({ handlers, credentials });
    registry.register('peer', config);
    await run(registry);
  }
} catch (error) {
  failed = true;
  process.stderr.write(`[${scenario}] ${error.message}\n`);
} finally {
  await registry.close();
  fs.rmSync(credentialsDir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
