/**
 * A real gateway on a store damaged under it (a row rewritten while no
 * gateway ran, as a failing disk or a hand edit would): the damaged
 * session's requests fail with STORE_CORRUPT naming the file, the session and
 * the entry, and the gateway keeps serving the other group.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openClawDataSource } from '../../entities/index.js';
import { runCli, type CliResult } from '../support/cli.js';
import { clawSandbox, startGateway, type ClawSandbox, type GatewayProcess } from '../support/claw.js';

/** A sandbox with the groups "main" and "other", each with its own workspace. */
function twoGroups(): ClawSandbox {
  const sandbox = clawSandbox();
  const other = path.join(sandbox.root, 'other');
  fs.mkdirSync(other);
  fs.writeFileSync(
    sandbox.configFile,
    `claw:\n  groups:\n    main: { workspace: ${sandbox.workspace}, model: faux/demo, enabled_tools: [read] }\n    other: { workspace: ${other}, model: faux/demo, enabled_tools: [read] }\n`,
  );
  return sandbox;
}

/** Runs `statements` on the store with its foreign keys off, while no gateway runs. */
async function damage(sandbox: ClawSandbox, statements: Array<[string, unknown[]]>): Promise<void> {
  const dataSource = await openClawDataSource({ type: 'sqlite', file: sandbox.storeFile });
  try {
    await dataSource.query('PRAGMA foreign_keys = OFF');
    for (const [sql, params] of statements) await dataSource.query(sql, params);
  } finally {
    await dataSource.destroy();
  }
}

async function mainSession(sandbox: ClawSandbox): Promise<{ id: string; entries: number[] }> {
  const dataSource = await openClawDataSource({ type: 'sqlite', file: sandbox.storeFile });
  try {
    const [group] = (await dataSource.query("SELECT active_session_id AS id FROM claw_groups WHERE name = 'main'")) as Array<{ id: string }>;
    const rows = (await dataSource.query("SELECT id FROM claw_entries WHERE session_id = ? AND kind = 'message' ORDER BY id", [group!.id])) as Array<{ id: number }>;
    return { id: group!.id, entries: rows.map((row) => Number(row.id)) };
  } finally {
    await dataSource.destroy();
  }
}

function expectCorrupt(result: CliResult, sandbox: ClawSandbox, ...parts: string[]): void {
  expect(result.status, result.stderr).toBe(1);
  expect(result.stderr).toContain(`the claw store ${sandbox.storeFile} is damaged: `);
  for (const part of parts) expect(result.stderr).toContain(part);
  expect(result.stderr).toContain('[STORE_CORRUPT]');
  expect(result.stderr).not.toContain('[INTERNAL]');
  expect(result.stderr).not.toContain('[MODEL_FAILED]');
}

describe('a gateway on a damaged store', { timeout: 240_000 }, () => {
  it('answers STORE_CORRUPT naming the file, session and entry for a payload that is not JSON or a missing leaf, and keeps serving the other group', async () => {
    const sandbox = twoGroups();
    const claw = (...args: string[]): CliResult => runCli(['claw', ...args], { env: sandbox.env, cwd: sandbox.root });
    let gateway: GatewayProcess = await startGateway(sandbox);
    try {
      expect(claw('send', 'hello')).toMatchObject({ status: 0, stdout: 'echo: hello\n' });
      expect(claw('send', '--group', 'other', 'hi')).toMatchObject({ status: 0, stdout: 'echo: hi\n' });
    } finally {
      await gateway.stop();
    }
    const session = await mainSession(sandbox);

    // A message payload that is not JSON.
    await damage(sandbox, [['UPDATE claw_entries SET payload = ? WHERE id = ?', ['{not json', session.entries[1]]]]);
    gateway = await startGateway(sandbox);
    try {
      const where = `session ${session.id}: entry ${session.entries[1]} (message): the payload is not JSON`;
      expectCorrupt(claw('send', 'again'), sandbox, where);
      expectCorrupt(claw('sessions', 'show'), sandbox, where);
      expectCorrupt(claw('sessions', 'export', session.id), sandbox, where);
      expect(claw('send', '--group', 'other', 'still here')).toMatchObject({ status: 0, stdout: 'echo: still here\n' });
      expect(gateway.child.exitCode).toBeNull();
    } finally {
      await gateway.stop();
    }

    // A leaf that points at a missing entry.
    await damage(sandbox, [
      ['UPDATE claw_entries SET payload = ? WHERE id = ?', [JSON.stringify({ message: { role: 'assistant', content: [{ type: 'text', text: 'echo: hello' }], model: 'faux/demo', usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 }, stopReason: 'stop', timestamp: 1 } }), session.entries[1]]],
      ['UPDATE claw_sessions SET leaf_entry_id = 99999 WHERE id = ?', [session.id]],
    ]);
    gateway = await startGateway(sandbox);
    try {
      const where = `session ${session.id}: its leaf entry 99999 is missing`;
      expectCorrupt(claw('send', 'again'), sandbox, where);
      expectCorrupt(claw('sessions', 'show'), sandbox, where);
      expect(claw('send', '--group', 'other', 'and here')).toMatchObject({ status: 0, stdout: 'echo: and here\n' });
      expect(gateway.child.exitCode).toBeNull();
    } finally {
      await gateway.stop();
    }
  });
});
