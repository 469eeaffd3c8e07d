/**
 * The read-only scope against mutating attempts: every one is denied (the
 * workspace stays as it was), in the group's agent and in a child that
 * inherits its gates; every allowed read still works; a scope that cannot be
 * decoded denies everything.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowedReads, mutatingAttempts, snapshot } from './attempts.js';
import { openPolicyGroup, textOf, type PolicyGroup } from './harness.js';

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

  it('holds a child that inherits the gates (agents start --inherit) to the scope: every mutating attempt denied, every read allowed', async () => {
    const before = snapshot(group.workspace);
    for (const [what, attempt] of mutatingAttempts(group.workspace)) {
      const result = await group.attemptAsChild(attempt);
      expect(result.isError, what).toBe(true);
      expect(textOf(result), what).toMatch(/read-only scope is on: ".+" is not allowed/);
    }
    expect(snapshot(group.workspace)).toEqual(before);
    for (const [attempt, expected] of allowedReads(group.workspace)) {
      const result = await group.attemptAsChild(attempt);
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
