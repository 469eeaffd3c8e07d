import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../support/cli.js';

// The official conformance runner, client mode, every client scenario it offers
// (`--suite all`), against dist/plugins/mcp (built by the global setup).
describe('MCP conformance (client mode, @modelcontextprotocol/conformance 0.1.13)', () => {
  it('passes every client scenario, authorization included, except the listed expected failures', () => {
    const result = spawnSync(
      process.execPath,
      [
        path.join(repoRoot, 'node_modules/@modelcontextprotocol/conformance/dist/index.js'),
        'client',
        '--command',
        `"${process.execPath}" test/plugins/mcp/conformance/client.mjs`,
        '--suite',
        'all',
        // The suite runs its scenarios at once, each auth one a login and a connect: generous on a loaded machine.
        '--timeout',
        '120000',
        '--expected-failures',
        'test/plugins/mcp/conformance/expected-failures.yml',
      ],
      { cwd: repoRoot, encoding: 'utf8', timeout: 600_000 },
    );
    expect(result.stdout).toMatch(/✓ initialize: \d+ passed, 0 failed/);
    expect(result.stdout).toMatch(/✓ tools_call: \d+ passed, 0 failed/);
    expect(result.stdout).toMatch(/✓ sse-retry: \d+ passed, 0 failed/);
    // The client declares elicitation; an accepted form carries the defaults it offered (SEP-1034).
    expect(result.stdout).toMatch(/✓ elicitation-sep1034-client-defaults: [1-9]\d* passed, 0 failed/);
    // Authorization: a 401 leads to the explicit login (dynamic, pre-registered and CIMD clients; the scope the challenge names).
    for (const scenario of ['metadata-default', 'metadata-var1', 'basic-cimd', 'pre-registration', 'scope-from-www-authenticate', 'token-endpoint-auth-basic', '2025-03-26-oauth-endpoint-fallback']) {
      expect(result.stdout).toMatch(new RegExp(`✓ auth/${scenario}: [1-9]\\d* passed, 0 failed`));
    }
    expect(result.stdout).toContain('Baseline check passed');
    expect(result.status).toBe(0);
  }, 600_000);
});
