/** `xdog claw onboard`: flags into an existing config (comments and other keys kept), refusals, the image model (only image generators offered), and the wizard on a TTY (tmux). */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { repoRoot, runCli } from '../support/cli.js';
import { tempDir } from '../support/temp.js';
import { hasTmux, tmuxSession } from '../support/tmux.js';

const ORIGINAL = `# team settings: keep this comment
model: openai/gpt-4.1 # the default model
mcp_servers:
  files: { command: npx, args: [-y, server] }
`;

function setup(): { root: string; workspace: string; config: string; env: NodeJS.ProcessEnv } {
  const root = tempDir('xdog-onboard-');
  const workspace = path.join(root, 'ws');
  fs.mkdirSync(workspace);
  const config = path.join(root, 'config.yaml');
  fs.writeFileSync(config, ORIGINAL);
  return { root, workspace, config, env: { XDG_CONFIG_HOME: path.join(root, 'c'), XDG_DATA_HOME: path.join(root, 'd') } };
}

describe('xdog claw onboard with flags', () => {
  it('adds a group, keeping the comments and the other keys; the first group becomes the default', () => {
    const { workspace, config, env } = setup();
    const result = runCli(['claw', 'onboard', '--config', config, '--group', 'main', '--workspace', workspace, '--model', 'faux/demo', '--tools', 'read,2'], { env });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(`added group main in ${config} (the default group)`);
    const text = fs.readFileSync(config, 'utf8');
    expect(text).toContain('# team settings: keep this comment');
    expect(text).toContain('model: openai/gpt-4.1 # the default model');
    expect(parse(text)).toEqual({
      model: 'openai/gpt-4.1',
      mcp_servers: { files: { command: 'npx', args: ['-y', 'server'] } },
      claw: { groups: { main: { workspace, model: 'faux/demo', enabled_tools: ['read'] } }, default_group: 'main' },
    });
    expect(fs.statSync(config).mode & 0o777).toBe(0o600);
  });

  it('a second group keeps the first and the default', () => {
    const { workspace, config, env } = setup();
    expect(runCli(['claw', 'onboard', '--config', config, '--workspace', workspace, '--model', 'faux/demo', '--tools', 'none'], { env }).status).toBe(0);
    const second = runCli(
      ['claw', 'onboard', '--config', config, '--group', 'review', '--workspace', workspace, '--model', 'openai/gpt-5.1', '--thinking', 'low', '--tools', 'all', '--image-model', 'openai/gpt-image-1', '--json'],
      { env },
    );
    expect(second.status).toBe(0);
    expect(JSON.parse(second.stdout)).toEqual({ file: config, group: 'review', madeDefault: false, replaced: false, imageModel: 'openai/gpt-image-1' });
    const claw = parse(fs.readFileSync(config, 'utf8')).claw;
    expect(claw.default_group).toBe('main');
    expect(claw.image_model).toBe('openai/gpt-image-1');
    expect(claw.groups.main).toEqual({ workspace, model: 'faux/demo', enabled_tools: [] });
    expect(claw.groups.review).toMatchObject({ workspace, model: 'openai/gpt-5.1', thinking: 'low' });
    expect(claw.groups.review.enabled_tools).toEqual(expect.arrayContaining(['bash', 'read', 'write', 'edit', 'ls', 'grep', 'find', 'current_time']));
  });

  it('offers the agent tool of the children plugin: by name, and in --tools all', () => {
    const { workspace, config, env } = setup();
    const named = runCli(['claw', 'onboard', '--config', config, '--group', 'main', '--workspace', workspace, '--model', 'faux/demo', '--tools', 'read,agent'], { env });
    expect(named.stderr).toBe('');
    expect(named.status).toBe(0);
    expect(parse(fs.readFileSync(config, 'utf8')).claw.groups.main.enabled_tools).toEqual(['read', 'agent']);
    const all = runCli(['claw', 'onboard', '--config', config, '--group', 'every', '--workspace', workspace, '--model', 'faux/demo', '--tools', 'all', '--image-model', 'openai/gpt-image-1'], { env });
    expect(all.status, all.stderr).toBe(0);
    expect(parse(fs.readFileSync(config, 'utf8')).claw.groups.every.enabled_tools).toEqual(expect.arrayContaining(['agent', 'read', 'update_plan', 'memory_write']));
  });

  it('refuses an unknown model (no fallback) and leaves the file byte for byte', () => {
    const { workspace, config, env } = setup();
    const result = runCli(['claw', 'onboard', '--config', config, '--workspace', workspace, '--model', 'openai/gpt-nope', '--tools', 'none'], { env });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^xdog: unknown model "openai\/gpt-nope".*\[MODEL_UNKNOWN\]/);
    expect(fs.readFileSync(config, 'utf8')).toBe(ORIGINAL);
  });

  it('generate_image needs claw.image_model, chosen only among models that generate images', () => {
    const { workspace, config, env } = setup();
    const flags = ['claw', 'onboard', '--config', config, '--workspace', workspace, '--model', 'faux/demo', '--tools', 'read,generate_image'];
    const missing = runCli(flags, { env });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/^xdog: generate_image is enabled but no image model is chosen: missing --image-model \[USAGE\] \(image models: .*openai\/gpt-image-1/);
    expect(missing.stderr).not.toMatch(/gpt-4\.1|gpt-5/);
    // A model that reads images but does not make them is not an image model.
    const chat = runCli([...flags, '--image-model', 'openai/gpt-4.1'], { env });
    expect(chat.status).not.toBe(0);
    expect(chat.stderr).toContain('openai/gpt-4.1 does not generate images');
    expect(fs.readFileSync(config, 'utf8')).toBe(ORIGINAL);

    const chosen = runCli([...flags, '--image-model', 'google/gemini-2.5-flash-image'], { env });
    expect(chosen.stderr).toBe('');
    expect(chosen.stdout).toContain('claw.image_model is google/gemini-2.5-flash-image');
    const claw = parse(fs.readFileSync(config, 'utf8')).claw;
    expect(claw).toMatchObject({ image_model: 'google/gemini-2.5-flash-image', groups: { main: { enabled_tools: ['read', 'generate_image'] } } });
    // Once set, a later group with the tool keeps it without asking again.
    expect(runCli([...flags.slice(0, 4), '--group', 'second', ...flags.slice(4)], { env }).status).toBe(0);
    expect(parse(fs.readFileSync(config, 'utf8')).claw.image_model).toBe('google/gemini-2.5-flash-image');
  });

  it('without a TTY names the missing flags; an existing group is replaced only with --yes', () => {
    const { workspace, config, env } = setup();
    const missing = runCli(['claw', 'onboard', '--config', config, '--model', 'faux/demo'], { env });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('missing --workspace, --tools [USAGE]');
    expect(runCli(['claw', 'onboard', '--config', config, '--workspace', workspace, '--model', 'faux/demo', '--tools', 'none'], { env }).status).toBe(0);
    const again = ['claw', 'onboard', '--config', config, '--workspace', workspace, '--model', 'faux/other', '--tools', 'bash'];
    const refused = runCli(again, { env });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('already has a group "main"');
    expect(parse(fs.readFileSync(config, 'utf8')).claw.groups.main.model).toBe('faux/demo');
    expect(runCli([...again, '--yes'], { env }).stdout).toContain('replaced group main');
    expect(parse(fs.readFileSync(config, 'utf8')).claw.groups.main).toEqual({ workspace, model: 'faux/other', enabled_tools: ['bash'] });
  });
});

const tty = tmuxSession(`xdog-e2e-onboard-${process.pid}`);
afterEach(() => tty.kill());

describe.skipIf(!hasTmux)('xdog claw onboard on a TTY', { timeout: 60_000 }, () => {
  it('asks for the group, workspace, model and tools (chosen by numbers) and writes them', async () => {
    const { root, workspace, config } = setup();
    const models = JSON.parse(runCli(['agent', 'models', '--json'], { env: { XDG_CONFIG_HOME: path.join(root, 'c') } }).stdout) as Array<{ model: string }>;
    const fauxNumber = models.findIndex((item) => item.model === 'faux/scripted') + 1;
    expect(fauxNumber).toBeGreaterThan(0);
    const env = `XDG_CONFIG_HOME=${root}/c XDG_DATA_HOME=${root}/d OCLIF_SKIP_NEW_VERSION_CHECK=1`;
    tty.start(`cd ${root} && env ${env} ${process.execPath} ${path.join(repoRoot, 'bin/run.js')} claw onboard --config ${config}; echo EXIT=$?; sleep 60`, { width: 160, height: 60 });
    await tty.waitFor('Group name');
    tty.keys('tty', 'Enter');
    await tty.waitFor('Workspace directory');
    tty.keys('C-u', workspace, 'Enter');
    await tty.waitFor('Model (number or provider/model)');
    tty.keys(String(fauxNumber), 'Enter');
    await tty.waitFor('Thinking level');
    tty.keys('Enter');
    await tty.waitFor('Tools (names or numbers');
    tty.keys('1,2,generate_image', 'Enter');
    // generate_image asks for the image model, offering only models that generate images.
    const asked = await tty.waitFor('Image model (number or provider/model)');
    const offered = asked.slice(asked.lastIndexOf('Image models (for generate_image):'));
    expect(offered).toMatch(/\d+\. openai\/gpt-image-1\n/);
    expect(offered).toContain('google/gemini-2.5-flash-image');
    expect(offered).not.toMatch(/gpt-4\.1|gpt-5|faux\//);
    const imageNumber = /(\d+)\. openai\/gpt-image-1\n/.exec(offered)![1]!;
    tty.keys(imageNumber, 'Enter');
    await tty.waitFor('Write it to the config file?');
    tty.keys('y', 'Enter');
    const end = await tty.waitFor('EXIT=');
    expect(end).toContain(`added group tty in ${config} (the default group)`);
    expect(end).toContain('EXIT=0');
    const text = fs.readFileSync(config, 'utf8');
    expect(text).toContain('# team settings: keep this comment');
    expect(parse(text).claw).toEqual({ groups: { tty: { workspace, model: 'faux/scripted', enabled_tools: ['bash', 'read', 'generate_image'] } }, default_group: 'tty', image_model: 'openai/gpt-image-1' });
  });
});
