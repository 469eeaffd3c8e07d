/** `xdog agent chat --json`: message updates carry deltas, so output grows linearly with the tool calls of a turn. */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { tempDir, writeTree } from '../support/temp.js';

/** Runs one turn of `calls` current_time calls, then an answer, with --json; returns the stdout lines. */
function runWithCalls(calls: number): string[] {
  const root = tempDir('xdog-e2e-json-');
  const toolCalls = Array.from({ length: calls }, () => ({ name: 'current_time', arguments: { timezone: 'UTC' } }));
  writeTree(root, { 'script.json': { responses: [{ toolCalls }, { text: 'done' }] } });
  const env = { XDG_CONFIG_HOME: path.join(root, 'config'), XDG_DATA_HOME: path.join(root, 'data'), XDOG_FAUX_SCRIPT: path.join(root, 'script.json') };
  const result = runCli(['agent', 'chat', 'faux/demo', 'go', '--json'], { env, cwd: root });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return result.stdout.trim().split('\n');
}

describe('xdog agent chat --json', { timeout: 120_000 }, () => {
  it('streams deltas with their content index, not the partial message', () => {
    const lines = runWithCalls(2);
    const updates = lines.map((line) => JSON.parse(line) as { type: string; message?: unknown; delta?: Record<string, unknown> }).filter((event) => event.type === 'message_update');
    expect(updates.length).toBeGreaterThan(0);
    for (const update of updates) {
      expect(update.message).toBeUndefined();
      expect(update.delta).not.toHaveProperty('partial');
    }
    expect(updates).toContainEqual({ type: 'message_update', delta: { type: 'toolcall_delta', contentIndex: 1, delta: '{"timezone":"UTC"}' } });
    expect(updates).toContainEqual({
      type: 'message_update',
      delta: { type: 'toolcall_end', contentIndex: 1, toolCall: expect.objectContaining({ type: 'toolCall', name: 'current_time', arguments: { timezone: 'UTC' } }) },
    });
    expect(updates).toContainEqual({ type: 'message_update', delta: { type: 'text_delta', contentIndex: 0, delta: 'done' } });
  });

  it('grows linearly with the tool calls of one turn', () => {
    const bytes = (calls: number) => runWithCalls(calls).reduce((sum, line) => sum + line.length + 1, 0);
    const small = bytes(100);
    const large = bytes(400);
    // Four times the calls: about four times the bytes. Snapshots in every update made it about sixteen.
    expect(large / small).toBeLessThan(6);
  });
});
