/**
 * Scenario 20 through a real gateway process and the built CLI: after
 * `skills load`, the next request's system prefix holds the skill's body;
 * `--turn` puts it into one run only and never into the saved history;
 * `unload` takes it out; the selection survives a restart (a pending turn
 * skill too), is carried into a fork, and a new session starts empty.
 * Loading while a run is going on applies from the next turn. Unknown
 * names, the count and byte limits and a vanished skill fail clearly.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LIMITS } from '../../core/limits.js';
import { openClawDataSource } from '../../entities/index.js';
import type { GatewayConnection } from '../../plugins/claw-gateway/index.js';
import { clawSandbox, connect, startGateway, until, watch, type ClawSandbox, type GatewayProcess } from '../support/claw.js';
import { runCli, type CliResult } from '../support/cli.js';

type Request = { systemPrompt?: string; messages: Array<{ role: string; content: unknown }> };

function writeSkill(dir: string, slug: string, body: string): void {
  fs.mkdirSync(path.join(dir, slug), { recursive: true });
  fs.writeFileSync(path.join(dir, slug, 'SKILL.md'), `---\nname: ${slug}\ndescription: the ${slug} skill\n---\n\n${body}\n`);
}

/** A sandbox whose config registers `<root>/skills` as the "team" directory, holding `style` and `review`. */
function skillSandbox(groupExtra = ''): ClawSandbox & { skillsDir: string } {
  const sandbox = clawSandbox(groupExtra);
  const skillsDir = path.join(sandbox.root, 'skills');
  fs.appendFileSync(sandbox.configFile, `skills:\n  dirs:\n    team: ${skillsDir}\n`);
  writeSkill(skillsDir, 'style', 'STYLE-BODY: answer in one short line.');
  writeSkill(skillsDir, 'review', 'REVIEW-BODY: list the risks first.');
  return { ...sandbox, skillsDir };
}

describe('xdog claw skills', { timeout: 300_000 }, () => {
  let gateway: GatewayProcess | undefined;
  let client: GatewayConnection | undefined;
  afterEach(async () => {
    await client?.close();
    await gateway?.stop();
    client = gateway = undefined;
  });

  const claw = (sandbox: ClawSandbox, ...args: string[]): CliResult => runCli(['claw', ...args], { env: sandbox.env, cwd: sandbox.root });
  const json = (sandbox: ClawSandbox, ...args: string[]): any => {
    const result = claw(sandbox, ...args, '--json');
    if (result.status !== 0) throw new Error(`xdog claw ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
    return JSON.parse(result.stdout);
  };
  const send = (sandbox: ClawSandbox, text: string): Request[] => {
    const before = sandbox.requests().length;
    const result = claw(sandbox, 'send', text);
    expect(result.status, result.stderr).toBe(0);
    return sandbox.requests().slice(before) as Request[];
  };
  const everything = (request: Request): string => JSON.stringify(request);

  it('puts session skills into every request, turn skills into one run, and keeps the selection across a restart and a fork', async () => {
    const sandbox = skillSandbox();
    gateway = await startGateway(sandbox);
    const idle = claw(sandbox, 'skills', 'load', 'style');
    expect(idle.status).not.toBe(0);
    expect(idle.stderr).toContain('group main has no active session yet');

    send(sandbox, 'hello');
    const listed = json(sandbox, 'skills', 'list');
    expect(listed).toMatchObject({ group: 'main', session: [], turn: [], runActive: false });
    expect(listed.available.map((skill: { slug: string; source: string }) => `${skill.slug}@${skill.source}`)).toEqual(['flow@plugin:flow', 'plan@plugin:plan', 'review@team', 'style@team']);

    const loaded = claw(sandbox, 'skills', 'load', 'style');
    expect(loaded.status, loaded.stderr).toBe(0);
    expect(loaded.stdout).toBe(`session ${listed.sessionId}: session: style; next turn: none\n`);
    const [withStyle] = send(sandbox, 'one');
    expect(withStyle!.systemPrompt).toContain('<skill name="style">\nSTYLE-BODY: answer in one short line.\n</skill>');
    expect(withStyle!.messages.at(-1)).toMatchObject({ role: 'user', content: 'one' });

    expect(claw(sandbox, 'skills', 'load', 'review', '--turn').stdout).toBe(`session ${listed.sessionId}: session: style; next turn: review\n`);
    // The turn is the whole next run: its first request and the one after its tool call.
    const turnRun = send(sandbox, 'run echo two');
    expect(turnRun).toHaveLength(2);
    for (const request of turnRun) {
      expect(request.systemPrompt).toContain('STYLE-BODY');
      expect(request.systemPrompt).not.toContain('REVIEW-BODY');
      const users = request.messages.filter((message) => message.role === 'user');
      expect(JSON.stringify(users.at(-1))).toContain('REVIEW-BODY');
      expect(JSON.stringify(users.slice(0, -1))).not.toContain('REVIEW-BODY');
    }
    const [after] = send(sandbox, 'three');
    // Gone from the next run, and the saved history every request carries holds the user's text only
    // (the faux model's echo of that turn quotes the skill, as a real model's answer might).
    expect(after!.systemPrompt).not.toContain('REVIEW-BODY');
    expect(after!.messages.filter((message) => message.role === 'user').map((message) => message.content)).toEqual(['hello', 'one', 'run echo two', 'three']);
    expect(after!.systemPrompt).toContain('STYLE-BODY');
    expect(json(sandbox, 'skills', 'list')).toMatchObject({ session: ['style'], turn: [] });

    // A restart keeps the session selection and a turn skill not used yet.
    json(sandbox, 'skills', 'load', 'review', '--turn');
    await gateway.stop();
    gateway = await startGateway(sandbox);
    expect(json(sandbox, 'skills', 'list')).toMatchObject({ sessionId: listed.sessionId, session: ['style'], turn: ['review'] });
    const [afterRestart] = send(sandbox, 'four');
    expect(afterRestart!.systemPrompt).toContain('STYLE-BODY');
    expect(JSON.stringify(afterRestart!.messages.at(-1))).toContain('REVIEW-BODY');
    expect(json(sandbox, 'skills', 'list')).toMatchObject({ session: ['style'], turn: [] });

    // A fork starts with the skills its session had; unloading there leaves the original's alone.
    const fork = json(sandbox, 'sessions', 'fork', '1');
    expect(fork.id).not.toBe(listed.sessionId);
    expect(json(sandbox, 'skills', 'list')).toMatchObject({ sessionId: fork.id, session: ['style'] });
    expect(claw(sandbox, 'skills', 'unload', 'style').stdout).toBe(`session ${fork.id}: session: none; next turn: none\n`);
    const [unloaded] = send(sandbox, 'five');
    expect(everything(unloaded!)).not.toContain('STYLE-BODY');
    json(sandbox, 'sessions', 'resume', listed.sessionId);
    expect(json(sandbox, 'skills', 'list')).toMatchObject({ sessionId: listed.sessionId, session: ['style'] });

    // A new session starts with no skills.
    const fresh = json(sandbox, 'sessions', 'new');
    expect(json(sandbox, 'skills', 'list')).toMatchObject({ sessionId: fresh.id, session: [], turn: [] });
    const [inFresh] = send(sandbox, 'six');
    expect(everything(inFresh!)).not.toContain('STYLE-BODY');
  });

  it('applies a load made while a turn runs from the next turn', async () => {
    const sandbox = skillSandbox();
    gateway = await startGateway(sandbox);
    send(sandbox, 'hello');
    client = await connect(sandbox);
    const { ends } = await watch(client);
    const before = sandbox.requests().length;
    await client.call('prompt', { text: 'slow 8', idempotencyKey: 'k-slow' });
    await until(() => sandbox.requests().length > before, 'the slow run to reach the model');
    const during = claw(sandbox, 'skills', 'load', 'style');
    expect(during.status, during.stderr).toBe(0);
    expect(during.stdout).toContain('(a turn is running: changes apply from the next turn)');
    await until(() => ends.length === 1, 'the slow run to end');
    const slowRun = sandbox.requests().slice(before) as Request[];
    expect(slowRun).toHaveLength(2);
    for (const request of slowRun) expect(everything(request)).not.toContain('STYLE-BODY');
    const [next] = send(sandbox, 'after');
    expect(next!.systemPrompt).toContain('STYLE-BODY');
  });

  it('refuses unknown names, a second scope, the count and byte limits, and fails a run whose skill vanished', async () => {
    const sandbox = skillSandbox();
    for (let index = 1; index <= LIMITS.activeSkills + 1; index++) writeSkill(sandbox.skillsDir, `s${String(index).padStart(2, '0')}`, `tiny ${index}`);
    const big = Math.floor(LIMITS.skillFileBytes * 0.9);
    const bigOnes = Array.from({ length: Math.ceil(LIMITS.activeSkillBytes / big) }, (_, index) => `big${index + 1}`);
    for (const slug of bigOnes) writeSkill(sandbox.skillsDir, slug, 'x'.repeat(big));
    gateway = await startGateway(sandbox);
    send(sandbox, 'hello');

    const unknown = claw(sandbox, 'skills', 'load', 'style', 'nope', 'nada');
    expect(unknown.status).not.toBe(0);
    expect(unknown.stderr).toContain('unknown skills "nope", "nada"');
    expect(unknown.stderr).toMatch(/available: big1, .*flow, plan, review, s01, .*s33, style/);
    const unknownJson = claw(sandbox, 'skills', 'load', 'nope', '--json');
    expect(JSON.parse(unknownJson.stdout)).toMatchObject({ error: { code: 'NOT_FOUND' } });

    const notLoaded = claw(sandbox, 'skills', 'unload', 'style');
    expect(notLoaded.stderr).toContain('"style" is not loaded in session');
    expect(claw(sandbox, 'skills', 'unload').stderr).toContain('name the skills to unload, or give --all');

    json(sandbox, 'skills', 'load', 'style');
    const twice = claw(sandbox, 'skills', 'load', 'style', '--turn');
    expect(twice.stderr).toContain('"style" is loaded for the session already');

    const many = Array.from({ length: LIMITS.activeSkills - 1 }, (_, index) => `s${String(index + 1).padStart(2, '0')}`);
    json(sandbox, 'skills', 'load', ...many);
    const over = claw(sandbox, 'skills', 'load', 's33', '--turn');
    expect(over.stderr).toContain(`would have ${LIMITS.activeSkills + 1} skills loaded, over the limit of ${LIMITS.activeSkills}`);
    json(sandbox, 'skills', 'unload', '--all');

    const heavy = claw(sandbox, 'skills', 'load', ...bigOnes);
    expect(heavy.stderr).toContain(`bytes of instructions, over the limit of ${LIMITS.activeSkillBytes}`);
    // A refused change leaves the selection as it was.
    expect(json(sandbox, 'skills', 'list')).toMatchObject({ session: [], turn: [] });

    // A loaded skill whose folder is gone fails the run before any model call, with the way out.
    json(sandbox, 'skills', 'load', 'review');
    fs.rmSync(path.join(sandbox.skillsDir, 'review'), { recursive: true });
    const before = sandbox.requests().length;
    const failed = claw(sandbox, 'send', 'anything');
    expect(failed.status).not.toBe(0);
    expect(failed.stderr).toMatch(/skill "review", loaded in session \S+, cannot be read \(unknown skill "review"\); unload it with `xdog claw skills unload review`/);
    expect(sandbox.requests()).toHaveLength(before);
    json(sandbox, 'skills', 'unload', 'review');
    expect(send(sandbox, 'works again')).toHaveLength(1);

    // A stored selection that is not a list of skill names is refused, never read as empty; `unload --all` clears it.
    const { sessionId } = json(sandbox, 'skills', 'list');
    await gateway.stop();
    const store = await openClawDataSource({ type: 'sqlite', file: sandbox.storeFile });
    await store.query(`INSERT INTO claw_turn_skills (session_id, slugs, loaded_at) VALUES ('${sessionId}', '["../../etc"]', 0)`);
    await store.destroy();
    gateway = await startGateway(sandbox);
    expect(claw(sandbox, 'skills', 'list').stderr).toContain(`the next-turn skills of session ${sessionId} are not a list of skill names`);
    const refused = sandbox.requests().length;
    expect(claw(sandbox, 'send', 'refused').status).not.toBe(0);
    expect(sandbox.requests()).toHaveLength(refused);
    expect(json(sandbox, 'skills', 'unload', '--all')).toMatchObject({ session: [], turn: [] });
    expect(send(sandbox, 'cleared')).toHaveLength(1);
  });

  it('refuses to start a group whose configured skills do not exist', async () => {
    const sandbox = skillSandbox('      skills: [style, missing]\n');
    await expect(startGateway(sandbox)).rejects.toThrow(/claw\.groups\.main\.skills: unknown skill "missing"/);
  });
});
