/**
 * definePlugin's short form (tools, hooks, skills), the check of `provides`
 * against what a plugin really binds, and the host's per-name overrides.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ClockToken,
  ContainerModule,
  ErrorCodes,
  SkillRepo,
  ToolContribution,
  WorkingDirectory,
  createKernel,
  definePlugin,
  discoverPlugins,
  overrideContributions,
  tapHook,
  type AgentTool,
  type Disposer,
  type Kernel,
  type Message,
  type XdogPlugin,
} from '../../core/index.js';
import { createFauxStreamFn } from '../../plugins/faux/index.js';
import toolsPlugin from '../../plugins/tools/index.js';
import { repoRoot } from '../support/cli.js';
import { tempDir, writeTree } from '../support/temp.js';

const exampleDir = path.join(repoRoot, 'docs/examples/xdog-plugin-hello');

/** A host project whose node_modules holds the given packages and xdog itself (linked, as npm would). */
function project(packages: Record<string, string | object> = {}, withExample = false): string {
  const root = tempDir();
  writeTree(root, { 'package.json': { name: 'host-app', private: true }, ...Object.fromEntries(Object.entries(packages).map(([file, content]) => [`node_modules/${file}`, content])) });
  fs.mkdirSync(path.join(root, 'node_modules'), { recursive: true });
  if (withExample) fs.cpSync(exampleDir, path.join(root, 'node_modules/xdog-plugin-hello'), { recursive: true });
  fs.symlinkSync(repoRoot, path.join(root, 'node_modules/xdog'), 'dir');
  return root;
}

const isolated = { installRoot: null, userDir: null } as const;

/** The example plugin as the long form would write it: a module that binds, an apply that taps with disposers. */
function longFormHello(): XdogPlugin {
  const helloTool = (): AgentTool<{ name: string }> => ({
    name: 'hello',
    description: 'Greets someone by name. Call it when the user asks you to say hello to a person.',
    parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false },
    execute: async ({ name }) => ({ content: [{ type: 'text', text: `Hello, ${name}!` }] }),
  });
  return definePlugin({
    name: 'xdog-plugin-hello',
    provides: { tools: ['hello'] },
    module: new ContainerModule(({ bind }) => {
      bind(ToolContribution).toDynamicValue(() => helloTool() as AgentTool);
    }),
    apply(kernel) {
      kernel.hooks.agentCreated.tap('xdog-plugin-hello', (agent) => {
        const dispose: Disposer = tapHook(agent.hooks.beforeToolCall, 'xdog-plugin-hello', ({ tool, args }: { tool: AgentTool; args: { name?: string } }) =>
          tool.name === 'hello' && args.name === 'Voldemort' ? { block: true, reason: 'we do not greet him' } : undefined,
        );
        agent.onClose(dispose);
      });
    },
  });
}

/** Runs one scripted conversation that greets Ada, then tries Voldemort; returns the transcript without timestamps. */
async function converse(kernel: Kernel): Promise<unknown[]> {
  const model = createFauxStreamFn({
    responses: [
      { toolCalls: [{ name: 'hello', arguments: { name: 'Ada' } }] },
      { toolCalls: [{ name: 'hello', arguments: { name: 'Voldemort' } }] },
      { text: 'done' },
    ],
  });
  const agent = kernel.createAgent(model, { model: 'faux/demo' }, { tools: kernel.getAll(ToolContribution) });
  await agent.prompt('greet people').result();
  const messages = agent.messages.map((message: Message) => {
    const { timestamp: _timestamp, ...rest } = message as Message & { timestamp?: number; toolCallId?: string };
    void _timestamp;
    return JSON.parse(JSON.stringify(rest, (key, value: unknown) => (key === 'toolCallId' || key === 'id' || key === 'usage' ? undefined : value))) as unknown;
  });
  await agent.close();
  return messages;
}

describe('definePlugin short form', () => {
  it('the example plugin in the short form behaves exactly like the long form', async () => {
    const root = project({}, true);
    const hello = discoverPlugins({ cwd: root, ...isolated }).find((plugin) => plugin.name === 'xdog-plugin-hello')!;
    const short = await createKernel({ plugins: [hello], cwd: root });
    const long = await createKernel({ plugins: [longFormHello()], cwd: root });
    const shortRun = await converse(short);
    const longRun = await converse(long);
    expect(shortRun).toEqual(longRun);
    const results = shortRun.filter((message) => (message as { role: string }).role === 'toolResult');
    expect(results).toMatchObject([
      { toolName: 'hello', isError: false, content: [{ type: 'text', text: 'Hello, Ada!' }] },
      { toolName: 'hello', isError: true, content: [{ type: 'text', text: expect.stringContaining('we do not greet him') }] },
    ]);
  });

  it('gives a tool factory the working directory, the clock and the kernel services', async () => {
    const seen: unknown[] = [];
    const plugin = definePlugin({
      name: 'where',
      provides: { tools: ['where'] },
      tools: [({ cwd, clock, get }) => {
        seen.push(cwd, clock.now(), get(WorkingDirectory));
        return { name: 'where', description: 'd', parameters: { type: 'object' }, execute: async () => ({ content: [] }) };
      }],
    });
    const kernel = await createKernel({ plugins: [plugin], cwd: '/somewhere', overrides: [new ContainerModule(({ rebind }) => void rebind(ClockToken).toConstantValue({ now: () => 42 }))] });
    expect(kernel.getAll(ToolContribution).map((tool) => tool.name)).toEqual(['where']);
    expect(seen).toEqual(['/somewhere', 42, '/somewhere']);
  });

  it('taps its hooks on every agent and removes them when that agent closes', async () => {
    const plugin = definePlugin({ name: 'watcher', hooks: { context: (messages) => messages, compact: () => undefined } });
    const kernel = await createKernel({ plugins: [plugin] });
    const agent = kernel.createAgent(createFauxStreamFn({ responses: [] }), { model: 'faux/demo' });
    expect(agent.hooks.context.taps.map((tap) => tap.name)).toEqual(['watcher']);
    expect(agent.hooks.compact.taps.map((tap) => tap.name)).toEqual(['watcher']);
    await agent.close();
    expect(agent.hooks.context.taps).toEqual([]);
    expect(agent.hooks.compact.taps).toEqual([]);
  });

  it('refuses a hook that does not exist and a tool that is neither a tool nor a factory', () => {
    expect(() => definePlugin({ name: 'bad', hooks: { beforeToolcall: () => undefined } as never })).toThrow(/hooks\.beforeToolcall is not an agent hook/);
    expect(() => definePlugin({ name: 'bad', tools: [{ name: 'x' } as never] })).toThrow(/tools\[0\] is neither a tool/);
  });

  it('checks a skills folder against provides.skills', async () => {
    const skill = '---\nname: greet\ndescription: How to greet\n---\nSay hello.\n';
    const root = project({
      'xdog-plugin-skilled/package.json': { name: 'xdog-plugin-skilled', version: '1.0.0', type: 'module', xdog: { entry: './index.js', provides: { skills: [] } } },
      'xdog-plugin-skilled/index.js': `import { definePlugin } from 'xdog';\nexport default definePlugin({ name: 'xdog-plugin-skilled', skills: './skills' });\n`,
      'xdog-plugin-skilled/skills/greet/SKILL.md': skill,
    });
    const skilled = discoverPlugins({ cwd: root, ...isolated }).find((plugin) => plugin.name === 'xdog-plugin-skilled');
    const failure = await createKernel({ plugins: [skilled!] }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: ErrorCodes.PLUGIN_INVALID, message: expect.stringMatching(/plugin "xdog-plugin-skilled" \(xdog-plugin-skilled.*ships skill "greet" but does not declare it in provides\.skills/) });
  });
});

describe('provides is checked against what a plugin binds', () => {
  it('a discovered plugin that binds a tool it did not declare fails with PLUGIN_INVALID naming its package', async () => {
    const root = project({
      'xdog-plugin-sneaky/package.json': { name: 'xdog-plugin-sneaky', version: '2.0.0', type: 'module', xdog: { entry: './index.js', provides: { tools: ['declared'] } } },
      'xdog-plugin-sneaky/index.js': `import { definePlugin } from 'xdog';
const tool = (name) => ({ name, description: name, parameters: { type: 'object' }, execute: async () => ({ content: [] }) });
export default definePlugin({ name: 'xdog-plugin-sneaky', provides: { tools: ['declared'] }, tools: [tool('declared'), () => tool('undeclared')] });
`,
    });
    const sneaky = discoverPlugins({ cwd: root, ...isolated }).find((plugin) => plugin.name === 'xdog-plugin-sneaky');
    const kernel = await createKernel({ plugins: [sneaky!] });
    expect(() => kernel.getAll(ToolContribution)).toThrow(/plugin "xdog-plugin-sneaky" \(xdog-plugin-sneaky@2\.0\.0, .*\) binds tool "undeclared" but does not declare it in provides\.tools/);
  });

  it('a constant contribution is checked as it is bound', async () => {
    const plugin = definePlugin({
      name: 'eager',
      provides: { tools: [] },
      module: new ContainerModule(({ bind }) => {
        bind(ToolContribution).toConstantValue({ name: 'surprise', description: 'd', parameters: { type: 'object' }, execute: async () => ({ content: [] }) });
      }),
    });
    await expect(createKernel({ plugins: [plugin] })).rejects.toMatchObject({ code: ErrorCodes.PLUGIN_INVALID, message: expect.stringContaining('plugin "eager" binds tool "surprise"') });
  });

  it('two plugins binding one tool name fail naming both plugins', async () => {
    const tool = { name: 'twin', description: 'd', parameters: { type: 'object' }, execute: async () => ({ content: [] }) } as AgentTool;
    const first = definePlugin({ name: 'first', provides: { tools: ['twin'] }, tools: [() => ({ ...tool })] });
    const second = definePlugin({ name: 'second', provides: { tools: ['twin'] }, tools: [() => ({ ...tool })] });
    const kernel = await createKernel({ plugins: [first, second] });
    expect(() => kernel.getAll(ToolContribution)).toThrow(/tool "twin" is bound by both plugin "first" and plugin "second"/);
  });
});

describe('host overrides of one contribution', () => {
  it('replaces one skill in a SkillRepo and keeps the others', () => {
    const skill = (slug: string, description: string) => `---\nname: ${slug}\ndescription: ${description}\n---\nBody.\n`;
    const shipped = tempDir();
    writeTree(shipped, { 'greet/SKILL.md': skill('greet', 'shipped greeting'), 'wave/SKILL.md': skill('wave', 'shipped wave') });
    const mine = tempDir();
    writeTree(mine, { 'greet/SKILL.md': skill('greet', 'the host greeting') });
    const repo = SkillRepo.empty().register({ name: 'shipped', directory: shipped });
    const hosted = repo.select(repo.slugs().filter((slug) => slug !== 'greet')).merge(SkillRepo.empty().register({ name: 'mine', directory: mine }));
    expect(hosted.list().map((info) => [info.slug, info.description])).toEqual([['greet', 'the host greeting'], ['wave', 'shipped wave']]);
  });

  it('swaps only the read tool and keeps the other built-ins', async () => {
    const cwd = tempDir();
    const builtins = (await createKernel({ plugins: [toolsPlugin], cwd })).getAll(ToolContribution);
    const myRead: AgentTool = { name: 'read', description: 'reads from the host store', parameters: { type: 'object' }, execute: async () => ({ content: [{ type: 'text', text: 'from the host' }] }) };
    const kernel = await createKernel({ plugins: [toolsPlugin], cwd, overrides: [overrideContributions({ tools: { read: myRead } })] });
    const tools = kernel.getAll(ToolContribution);
    expect(tools.map((tool) => tool.name)).toEqual(builtins.map((tool) => tool.name));
    expect(tools.find((tool) => tool.name === 'read')).toBe(myRead);
    expect(tools.filter((tool) => tool.name !== 'read').map((tool) => tool.description)).toEqual(builtins.filter((tool) => tool.name !== 'read').map((tool) => tool.description));
  });

  it('removes one tool by name, and refuses a name no plugin contributes or a renamed replacement', async () => {
    const cwd = tempDir();
    const without = await createKernel({ plugins: [toolsPlugin], cwd, overrides: [overrideContributions({ tools: { bash: null } })] });
    expect(without.getAll(ToolContribution).map((tool) => tool.name)).not.toContain('bash');
    expect(without.getAll(ToolContribution).map((tool) => tool.name)).toContain('read');

    const typo = await createKernel({ plugins: [toolsPlugin], cwd, overrides: [overrideContributions({ tools: { reed: null } })] });
    expect(() => typo.getAll(ToolContribution)).toThrow(/the host overrides tool "reed", but no loaded plugin contributes it/);

    const renamed = await createKernel({ plugins: [toolsPlugin], cwd, overrides: [overrideContributions({ tools: { read: ({ cwd: dir }) => ({ name: 'cat', description: dir, parameters: { type: 'object' }, execute: async () => ({ content: [] }) }) } })] });
    expect(() => renamed.getAll(ToolContribution)).toThrow(/replacement for tool "read" is named "cat"/);
  });
});
