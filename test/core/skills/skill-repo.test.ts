import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { XdogError } from '../../../core/index.js';
import { SkillRepo } from '../../../core/skills/skill-repo.js';
import { createSkillTool } from '../../../core/skills/skill-tool.js';

let tmp: string;

function writeSkill(dir: string, slug: string, description: string, body = `Do ${slug} carefully.`): void {
  fs.mkdirSync(path.join(dir, slug), { recursive: true });
  fs.writeFileSync(path.join(dir, slug, 'SKILL.md'), `---\nname: ${slug}\ndescription: ${description}\n---\n\n${body}\n`);
}

/** A project whose node_modules holds a plugin package that ships a skill. */
function installSkillPlugin(project: string): void {
  const pkg = path.join(project, 'node_modules', 'xdog-plugin-review');
  fs.mkdirSync(pkg, { recursive: true });
  fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({
    name: 'xdog-plugin-review',
    version: '1.0.0',
    xdog: { entry: './index.js', provides: { skills: ['review'] } },
  }));
  fs.writeFileSync(path.join(pkg, 'index.js'), 'throw new Error("discovery must not import me");\n');
  writeSkill(path.join(pkg, 'skills'), 'review', 'Review a change', 'Read the diff twice.');
}

beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'xdog-skills-'));
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('SkillRepo', () => {
  it('indexes registered directories without reading bodies into the index', () => {
    writeSkill(path.join(tmp, 'team'), 'deploy', 'Ship a release');
    writeSkill(path.join(tmp, 'team'), 'triage', 'Sort incoming issues');
    const repo = SkillRepo.empty().register({ directory: path.join(tmp, 'team'), name: 'team' });
    expect(repo.list().map(({ slug, description, source }) => ({ slug, description, source }))).toEqual([
      { slug: 'deploy', description: 'Ship a release', source: 'team' },
      { slug: 'triage', description: 'Sort incoming issues', source: 'team' },
    ]);
    expect(JSON.stringify(repo.list())).not.toContain('carefully');
    expect(repo.read('deploy').body).toBe('Do deploy carefully.');
  });

  it('lists and loads a skill packaged by an installed plugin, importing nothing', () => {
    installSkillPlugin(tmp);
    const repo = new SkillRepo({ cwd: tmp });
    expect(repo.get('review')).toMatchObject({ slug: 'review', source: 'plugin:xdog-plugin-review' });
    expect(repo.read('review').body).toBe('Read the diff twice.');
    expect(new SkillRepo({ cwd: tmp, builtin: false }).has('review')).toBe(false);
  });

  it('registers a directory that does not exist without creating it', () => {
    const missing = path.join(tmp, 'later');
    const repo = SkillRepo.empty().register({ directory: missing, name: 'host' });
    expect(repo.list()).toEqual([]);
    expect(fs.existsSync(missing)).toBe(false);
  });

  it('fails on two definitions of one slug, naming both sources', () => {
    writeSkill(path.join(tmp, 'a'), 'deploy', 'A');
    writeSkill(path.join(tmp, 'b'), 'deploy', 'B');
    const repo = SkillRepo.empty().register({ directory: path.join(tmp, 'a'), name: 'a' }).register({ directory: path.join(tmp, 'b'), name: 'b' });
    expect(() => repo.list()).toThrow(/skill "deploy" is defined twice: by a .* and by b /);
  });

  it('fails when a directory name is reused for another path, and accepts the same path again', () => {
    const repo = SkillRepo.empty().register({ directory: path.join(tmp, 'a'), name: 'host' });
    expect(repo.register({ directory: path.join(tmp, 'a'), name: 'host' })).toBe(repo);
    expect(() => repo.register({ directory: path.join(tmp, 'b'), name: 'host' })).toThrow(/already registered/);
  });

  it('selects and merges; an unknown slug fails', () => {
    writeSkill(path.join(tmp, 'a'), 'one', 'One');
    writeSkill(path.join(tmp, 'a'), 'two', 'Two');
    writeSkill(path.join(tmp, 'b'), 'three', 'Three');
    const a = SkillRepo.empty().register({ directory: path.join(tmp, 'a'), name: 'a' });
    const b = SkillRepo.empty().register({ directory: path.join(tmp, 'b'), name: 'b' });
    expect(a.select(['two']).slugs()).toEqual(['two']);
    expect(a.select(['two']).merge(b).slugs()).toEqual(['three', 'two']);
    expect(a.merge(a).slugs()).toEqual(['one', 'two']);
    expect(() => a.select(['nope'])).toThrow(XdogError);
    expect(() => a.get('nope')).toThrow(/unknown skill "nope".*/);
  });

  it('rejects a SKILL.md with bad front matter, naming the file', () => {
    fs.mkdirSync(path.join(tmp, 'a', 'bad'), { recursive: true });
    fs.writeFileSync(path.join(tmp, 'a', 'bad', 'SKILL.md'), '---\nname: other\ndescription: x\n---\nbody\n');
    const repo = SkillRepo.empty().register({ directory: path.join(tmp, 'a'), name: 'a' });
    expect(() => repo.list()).toThrow(/SKILL.md is named "other" but its folder is "bad"/);
  });
});

describe('skill tool', () => {
  it('lists skills and loads a body as a tool result, limited to allowed slugs', async () => {
    writeSkill(path.join(tmp, 'a'), 'one', 'First skill');
    writeSkill(path.join(tmp, 'a'), 'two', 'Second skill');
    const repo = SkillRepo.empty().register({ directory: path.join(tmp, 'a'), name: 'a' });
    const tool = createSkillTool(repo, { allowedSlugs: ['two'] });
    const ctx = { toolCallId: 'c1', signal: new AbortController().signal, onUpdate() {}, toolCtx: {} };
    const listed = await tool.execute({ action: 'list' }, ctx);
    expect(listed.content).toEqual([{ type: 'text', text: '- two: Second skill' }]);
    const loaded = await tool.execute({ action: 'load', slug: 'two' }, ctx);
    expect(loaded.content).toEqual([{ type: 'text', text: 'Do two carefully.' }]);
    await expect(tool.execute({ action: 'load', slug: 'one' }, ctx)).rejects.toThrow(/not available/);
    await expect(createSkillTool(repo).execute({ action: 'load', slug: 'one' }, ctx)).resolves.toMatchObject({ content: [{ text: 'Do one carefully.' }] });
  });
});

describe('SkillRepo.fromConfig', () => {
  it('registers the directories the config names, relative to the working directory', async () => {
    const { parseConfig } = await import('../../../core/index.js');
    writeSkill(path.join(tmp, 'team-skills'), 'deploy', 'Ship a release');
    const config = parseConfig('skills:\n  dirs:\n    team: ./team-skills\n');
    const repo = SkillRepo.fromConfig(config, tmp);
    expect(repo.get('deploy')).toMatchObject({ source: 'team' });
    expect(() => parseConfig('skills:\n  dirs:\n    "bad name": x\n')).toThrow(/skills\.dirs/);
  });
});
