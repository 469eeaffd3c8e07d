/**
 * The read-only scope against mutating attempts: every one is denied (the
 * workspace stays as it was), every allowed read still works, and a scope
 * that cannot be decoded denies everything.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REWRITE_MARK, openPolicyGroup, textOf, type PolicyGroup, type ToolAttempt } from './harness.js';

/** Mutating (or not allow-listed) attempts; each must be denied by the read-only gate. */
export function mutatingAttempts(workspace: string): Array<[string, ToolAttempt]> {
  const inside = (file: string) => path.join(workspace, file);
  return [
    ['bash writing a file', { name: 'bash', arguments: { command: 'echo pwned > pwned.txt' } }],
    ['bash that only reads', { name: 'bash', arguments: { command: 'cat notes.txt' } }],
    ['bash removing files', { name: 'bash', arguments: { command: 'rm -rf src' } }],
    ['write of a new file', { name: 'write', arguments: { path: 'pwned.txt', content: 'x' } }],
    ['write over an existing file', { name: 'write', arguments: { path: 'notes.txt', content: 'gone' } }],
    ['write outside the workspace', { name: 'write', arguments: { path: '../escape.txt', content: 'x' } }],
    ['write by absolute path', { name: 'write', arguments: { path: inside('abs.txt'), content: 'x' } }],
    ['edit of a file', { name: 'edit', arguments: { path: 'notes.txt', old_text: 'alpha', new_text: 'beta' } }],
    ['edit of source', { name: 'edit', arguments: { path: 'src/main.ts', old_text: 'needle', new_text: 'pin' } }],
    ['MCP write_file', { name: 'fs__write_file', arguments: { path: inside('mcp.txt'), content: 'x' } }],
    ['MCP edit_file', { name: 'fs__edit_file', arguments: { path: inside('notes.txt'), edits: [{ oldText: 'alpha', newText: 'beta' }] } }],
    ['MCP create_directory', { name: 'fs__create_directory', arguments: { path: inside('newdir') } }],
    ['MCP move_file', { name: 'fs__move_file', arguments: { source: inside('notes.txt'), destination: inside('moved.txt') } }],
    ['MCP tool the server marks read-only but the user did not list', { name: 'fs__list_allowed_directories', arguments: {} }],
    ['MCP read tool the user did not list', { name: 'fs__read_multiple_files', arguments: { paths: [inside('notes.txt')] } }],
    ['an extension tool', { name: 'touch', arguments: { file: 'touched.txt' } }],
    ['bash whose arguments a pre-hook rewrote to look harmless', { name: 'bash', arguments: { command: `echo pwned > rewritten.txt # ${REWRITE_MARK}` } }],
    ['MCP write whose arguments a pre-hook rewrote', { name: 'fs__write_file', arguments: { path: inside(`rw${REWRITE_MARK}.txt`), content: 'x' } }],
    ['bash in the background', { name: 'bash', arguments: { command: '(sleep 0; touch late.txt) &' } }],
    ['write of an empty file', { name: 'write', arguments: { path: 'empty.txt', content: '' } }],
    ['edit by absolute path', { name: 'edit', arguments: { path: inside('notes.txt'), old_text: 'needle', new_text: 'x' } }],
  ];
}

/** Reads that the scope allows, with a text each result must contain. */
export function allowedReads(workspace: string): Array<[ToolAttempt, string]> {
  return [
    [{ name: 'read', arguments: { path: 'notes.txt' } }, 'needle here'],
    [{ name: 'ls', arguments: { path: '.' } }, 'src/'],
    [{ name: 'grep', arguments: { pattern: 'needle' } }, 'main.ts'],
    [{ name: 'find', arguments: { pattern: '**/*.ts' } }, 'main.ts'],
    [{ name: 'current_time', arguments: {} }, '20'],
    [{ name: 'fs__read_text_file', arguments: { path: path.join(workspace, 'notes.txt') } }, 'needle here'],
    [{ name: 'fs__list_directory', arguments: { path: workspace } }, 'notes.txt'],
  ];
}

export function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const full = path.join(dir, entry);
    files[entry] = fs.statSync(full).isDirectory() ? '<dir>' : fs.readFileSync(full, 'utf8');
  }
  return files;
}

describe('the read-only scope', () => {
  let group: PolicyGroup;
  beforeAll(async () => {
    group = await openPolicyGroup();
    await group.store.setAccessScope(group.group, 'read-only');
  });
  afterAll(() => group.close());

  it('has at least 20 mutating attempts to deny', () => {
    expect(mutatingAttempts(group.workspace).length).toBeGreaterThanOrEqual(20);
  });

  it('denies every mutating attempt and leaves the workspace as it was', async () => {
    const before = snapshot(group.workspace);
    const outside = path.join(group.workspace, '..', 'escape.txt');
    for (const [what, attempt] of mutatingAttempts(group.workspace)) {
      const result = await group.attempt(attempt);
      expect(result.isError, what).toBe(true);
      expect(textOf(result), what).toMatch(/read-only scope is on: ".+" is not allowed/);
    }
    expect(snapshot(group.workspace)).toEqual(before);
    expect(fs.existsSync(outside)).toBe(false);
  });

  it('still runs every allowed read', async () => {
    for (const [attempt, expected] of allowedReads(group.workspace)) {
      const result = await group.attempt(attempt);
      expect(result.isError, attempt.name).toBe(false);
      expect(textOf(result), attempt.name).toContain(expected);
    }
  });

  it('lets writes through again once the user turns it off, and the change is fenced by revision', async () => {
    const scope = await group.store.getAccessScope(group.group);
    expect(scope).toMatchObject({ mode: 'read-only', revision: 1 });
    await expect(group.store.setAccessScope(group.group, 'full', 0)).rejects.toMatchObject({ code: 'STALE' });
    await group.store.setAccessScope(group.group, 'full', 1);
    const written = await group.attempt({ name: 'write', arguments: { path: 'allowed.txt', content: 'ok' } });
    expect(written.isError).toBe(false);
    expect(fs.readFileSync(path.join(group.workspace, 'allowed.txt'), 'utf8')).toBe('ok');
    fs.rmSync(path.join(group.workspace, 'allowed.txt'));
    await group.store.setAccessScope(group.group, 'read-only', 2);
  });

  it('fails closed on a stored scope it cannot decode: reads are denied too, and only "on" may replace it', async () => {
    await group.dataSource.query("UPDATE claw_access_scopes SET mode = 'readonly-ish' WHERE group_name = 'main'");
    const read = await group.attempt({ name: 'read', arguments: { path: 'notes.txt' } });
    expect(read.isError).toBe(true);
    expect(textOf(read)).toMatch(/access scope could not be read, so every tool call is denied: .*corrupt/);
    await expect(group.store.setAccessScope(group.group, 'full')).rejects.toMatchObject({ code: 'STORE_CORRUPT' });
    const repaired = await group.store.setAccessScope(group.group, 'read-only');
    expect(repaired).toMatchObject({ mode: 'read-only', revision: 4 });
    expect((await group.attempt({ name: 'read', arguments: { path: 'notes.txt' } })).isError).toBe(false);
  });
});
