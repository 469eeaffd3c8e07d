/**
 * Plan mode against the same mutating attempts as the read-only scope:
 * while planning, every one is denied (MCP tools too, even the ones the
 * read-only scope allows), local reads and update_plan still work; once
 * executing, the gate stands aside; an unreadable plan denies everything.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import planPlugin, { type PlanState } from '../../../plugins/plan/index.js';
import { openPolicyGroup, textOf, type PolicyGroup } from '../access/harness.js';
import { allowedReads, mutatingAttempts, snapshot } from '../access/attempts.js';

const planning = (revision = 1): PlanState => ({ version: 1, status: 'planning', objective: 'tidy the notes', revision, steps: [], updatedAt: 1 });

describe('plan mode', () => {
  let group: PolicyGroup;
  beforeAll(async () => {
    group = await openPolicyGroup([planPlugin]);
    await group.store.updateState(group.sessionId, { plan: planning() });
  });
  afterAll(() => group.close());

  it('denies every mutating attempt and every MCP call while planning, and leaves the workspace as it was', async () => {
    const before = snapshot(group.workspace);
    const attempts = [
      ...mutatingAttempts(group.workspace),
      ['MCP read the read-only scope would allow', { name: 'fs__read_text_file', arguments: { path: path.join(group.workspace, 'notes.txt') } }] as const,
    ];
    for (const [what, attempt] of attempts) {
      const result = await group.attempt(attempt);
      expect(result.isError, what).toBe(true);
      expect(textOf(result), what).toMatch(/plan mode: ".+" is not allowed while planning .*plan execute 1/);
    }
    expect(snapshot(group.workspace)).toEqual(before);
  });

  it('holds a child that inherits the gates (agents start --inherit) to plan mode, and gives it no update_plan', async () => {
    const before = snapshot(group.workspace);
    for (const [what, attempt] of mutatingAttempts(group.workspace)) {
      const result = await group.attemptAsChild(attempt);
      expect(result.isError, what).toBe(true);
      expect(textOf(result), what).toMatch(/plan mode: ".+" is not allowed while planning/);
    }
    expect(snapshot(group.workspace)).toEqual(before);
    for (const [attempt, expected] of allowedReads(group.workspace).filter(([attempt]) => !attempt.name.startsWith('fs__'))) {
      const result = await group.attemptAsChild(attempt);
      expect(result.isError, attempt.name).toBe(false);
      expect(textOf(result), attempt.name).toContain(expected);
    }
    const update = await group.attemptAsChild({ name: 'update_plan', arguments: { revision: 1, steps: [] } });
    expect(textOf(update)).toBe('Tool "update_plan" is not available');
  });

  it('still runs local reads and update_plan, which checks the revision', async () => {
    for (const [attempt, expected] of allowedReads(group.workspace).filter(([attempt]) => !attempt.name.startsWith('fs__'))) {
      const result = await group.attempt(attempt);
      expect(result.isError, attempt.name).toBe(false);
      expect(textOf(result), attempt.name).toContain(expected);
    }
    const steps = [
      { text: 'read the notes', status: 'completed' },
      { text: 'rewrite them', status: 'pending' },
    ];
    const updated = await group.attempt({ name: 'update_plan', arguments: { revision: 1, steps } });
    expect(updated.isError).toBe(false);
    expect(textOf(updated)).toBe('plan (planning, revision 2): tidy the notes\n1. [x] read the notes\n2. [ ] rewrite them');
    const stale = await group.attempt({ name: 'update_plan', arguments: { revision: 1, steps } });
    expect(stale.isError).toBe(true);
    expect(textOf(stale)).toContain('the plan is at revision 2, not 1');
    const twoInProgress = await group.attempt({ name: 'update_plan', arguments: { revision: 2, steps: steps.map((step) => ({ ...step, status: 'in_progress' })) } });
    expect(textOf(twoInProgress)).toContain('at most one step may be in_progress');
    expect(((await group.store.getState(group.sessionId)).plan as PlanState).revision).toBe(2);
  });

  it('stands aside once the plan is executing', async () => {
    await group.store.updateState(group.sessionId, { plan: { ...planning(3), status: 'executing' } });
    const written = await group.attempt({ name: 'write', arguments: { path: 'done.txt', content: 'ok' } });
    expect(written.isError).toBe(false);
    expect(fs.readFileSync(path.join(group.workspace, 'done.txt'), 'utf8')).toBe('ok');
  });

  it('fails closed on a plan it cannot decode', async () => {
    await group.store.updateState(group.sessionId, { plan: { version: 1, status: 'dreaming' } });
    const read = await group.attempt({ name: 'read', arguments: { path: 'notes.txt' } });
    expect(read.isError).toBe(true);
    expect(textOf(read)).toMatch(/the plan state could not be read, so every tool call is denied: .*corrupt \(status/);
  });
});
