import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LIMITS, SkillRepo, XdogError } from '../../../core/index.js';
import { assertAvailable, loadSkills, readSelection, unloadSkills } from '../../../plugins/claw-skills/selection.js';
import { tempDir } from '../../support/temp.js';

function repoWith(skills: Record<string, string>): SkillRepo {
  const dir = tempDir('xdog-skills-');
  for (const [slug, body] of Object.entries(skills)) {
    fs.mkdirSync(path.join(dir, slug));
    fs.writeFileSync(path.join(dir, slug, 'SKILL.md'), `---\nname: ${slug}\ndescription: ${slug}\n---\n\n${body}\n`);
  }
  return SkillRepo.empty().register({ directory: dir, name: 'test' });
}

function caught(work: () => unknown): XdogError {
  try {
    work();
  } catch (error) {
    if (XdogError.is(error)) return error;
    throw error;
  }
  throw new Error('expected an XdogError');
}

describe('skill selection changes', () => {
  it('adds to a scope once, moves a turn skill to the session, and refuses a session skill for a turn', () => {
    const start = { session: ['a'], turn: ['b'] };
    expect(loadSkills(start, ['a', 'c'], 'session')).toEqual({ session: ['a', 'c'], turn: ['b'] });
    expect(loadSkills(start, ['b'], 'session')).toEqual({ session: ['a', 'b'], turn: [] });
    expect(loadSkills(start, ['b', 'd'], 'turn')).toEqual({ session: ['a'], turn: ['b', 'd'] });
    expect(caught(() => loadSkills(start, ['a'], 'turn'))).toMatchObject({ code: 'CONFLICT', message: '"a" is loaded for the session already, so it is in every request' });
    expect(caught(() => loadSkills(start, ['c', 'c'], 'session'))).toMatchObject({ code: 'INVALID_ARGUMENT', message: 'skill "c" is named twice' });
  });

  it('unloads from either scope, everything with null, and names what is not loaded', () => {
    const start = { session: ['a', 'c'], turn: ['b'] };
    expect(unloadSkills(start, ['c', 'b'], 's1')).toEqual({ session: ['a'], turn: [] });
    expect(unloadSkills(start, null, 's1')).toEqual({ session: [], turn: [] });
    expect(caught(() => unloadSkills(start, ['a', 'x', 'y'], 's1'))).toMatchObject({ code: 'NOT_FOUND', message: '"x", "y" are not loaded in session s1', hint: 'loaded: a, c, b' });
  });

  it('names every unknown slug with the available ones', () => {
    const repo = repoWith({ alpha: 'A', beta: 'B' });
    expect(() => assertAvailable(repo, ['alpha'])).not.toThrow();
    expect(caught(() => assertAvailable(repo, ['gamma', 'alpha', 'delta']))).toMatchObject({ code: 'NOT_FOUND', message: 'unknown skills "gamma", "delta"', hint: 'available: alpha, beta' });
    expect(caught(() => assertAvailable(SkillRepo.empty(), ['alpha'])).hint).toMatch(/no skills are installed/);
  });

  it('reads the bodies within the count and byte limits', () => {
    const repo = repoWith({ alpha: 'A-BODY', beta: 'B-BODY' });
    const documents = readSelection(repo, { session: ['alpha'], turn: ['beta'] }, 's1');
    expect(documents.session.map((skill) => skill.body)).toEqual(['A-BODY']);
    expect(documents.turn.map((skill) => skill.body)).toEqual(['B-BODY']);
    const tooMany = Array.from({ length: LIMITS.activeSkills + 1 }, (_, index) => `s${index}`);
    expect(caught(() => readSelection(repo, { session: tooMany, turn: [] }, 's1'))).toMatchObject({ code: 'LIMIT_EXCEEDED' });
    expect(caught(() => readSelection(repo, { session: ['gone'], turn: [] }, 's1')).message).toContain('skill "gone", loaded in session s1, cannot be read');
  });
});
