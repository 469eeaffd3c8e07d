/**
 * Import cost is part of the design (DESIGN.md): a command loads only what it
 * runs. These tests record what the built CLI really loads (module hooks in
 * test/support/module-record) and fail when a heavy package or module joins a
 * command that has no use for it.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, runCli } from '../support/cli.js';
import { tempDir } from '../support/temp.js';

const REGISTER = path.join(repoRoot, 'test/support/module-record/register.mjs');

/** The import edges a record file holds: parent URL → the URLs it imported. */
function readEdges(file: string): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    const [parent, url] = line.split('\t') as [string, string];
    if (!edges.has(parent)) edges.set(parent, new Set());
    edges.get(parent)!.add(url);
  }
  return edges;
}

/** Everything reachable from `start` over the edges. */
function closure(edges: Map<string, Set<string>>, start: string): Set<string> {
  const seen = new Set([start]);
  const stack = [start];
  while (stack.length) {
    for (const next of edges.get(stack.pop()!) ?? []) {
      if (seen.has(next)) continue;
      seen.add(next);
      stack.push(next);
    }
  }
  return seen;
}

/** The npm packages among some URLs (the outermost node_modules folder of each). */
function packagesOf(urls: Iterable<string>): Set<string> {
  const names = new Set<string>();
  for (const url of urls) {
    const name = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1];
    if (name) names.add(name);
  }
  return names;
}

/** Repository files among some URLs, relative to dist/ (e.g. `plugins/sessions/index.js`). */
function distFilesOf(urls: Iterable<string>): string[] {
  const prefix = new URL('dist/', `file://${repoRoot}/`).href;
  return [...urls].filter((url) => url.startsWith(prefix)).map((url) => url.slice(prefix.length));
}

/** Runs the built CLI with the recorder; returns its result and every URL it loaded. */
function recordCli(args: string[], env: NodeJS.ProcessEnv): { status: number | null; stdout: string; stderr: string; loaded: Set<string> } {
  const record = path.join(tempDir('xdog-imports-'), 'record.tsv');
  fs.writeFileSync(record, '');
  const result = runCli(args, { env: { ...env, NODE_OPTIONS: `--import ${REGISTER}`, XDOG_MODULE_RECORD: record } });
  const loaded = new Set([...readEdges(record).values()].flatMap((urls) => [...urls]));
  return { ...result, loaded };
}

/**
 * Heavy packages and the commands allowed to load them at module load, by
 * command id prefix. Plugins meet the gateway and the store through their light
 * faces (tokens.ts) and the store loads typeorm on its first open, so no command
 * module loads typeorm (docs/architecture.md, "Import cost"): the lists may
 * shrink, never grow.
 */
const HEAVY: Record<string, readonly string[]> = {
  typeorm: [],
  'better-sqlite3': [],
  pg: [],
  'pg-boss': [],
  '@mariozechner/pi-tui': ['claw tui'],
  'playwright-core': [],
  '@inquirer/prompts': ['claw onboard'],
  'irc-framework': [],
  'web-tree-sitter': [],
  '@opentelemetry/sdk-trace-node': [],
};

describe('what each command loads', () => {
  let perCommand: Map<string, Set<string>>;

  beforeAll(() => {
    // One process imports every command module in turn; the recorded edges tell which
    // modules each one pulls in (what an earlier one already loaded is still an edge).
    const commandsDir = path.join(repoRoot, 'dist/commands');
    const files = fs
      .readdirSync(commandsDir, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.js') && !file.split(path.sep).some((part) => part.startsWith('_')) && file !== 'base-command.js')
      .sort();
    const record = path.join(tempDir('xdog-imports-'), 'record.tsv');
    fs.writeFileSync(record, '');
    execFileSync(process.execPath, ['--import', REGISTER, path.join(repoRoot, 'test/support/module-record/import-commands.mjs'), ...files.map((file) => path.join(commandsDir, file))], {
      env: { ...process.env, XDOG_MODULE_RECORD: record },
      timeout: 120_000,
    });
    const edges = readEdges(record);
    perCommand = new Map(files.map((file) => [file.replace(/\.js$/, '').split(path.sep).join(' '), closure(edges, new URL(`file://${path.join(commandsDir, file)}`).href)]));
  });

  it('imports every command module and lists its packages; a heavy one only where that command needs it', () => {
    expect(perCommand.size).toBeGreaterThan(90);
    const offenders: string[] = [];
    for (const [command, urls] of perCommand) {
      const packages = packagesOf(urls);
      // pi-tui's weight is its index (the whole terminal UI); `claw send --image` loads only its import-free image-header module.
      const loads = (heavy: string) => (heavy === '@mariozechner/pi-tui' ? [...urls].some((url) => url.endsWith('/@mariozechner/pi-tui/dist/index.js')) : packages.has(heavy));
      for (const [heavy, allowed] of Object.entries(HEAVY)) {
        if (loads(heavy) && !allowed.some((prefix) => command === prefix || command.startsWith(`${prefix} `))) offenders.push(`${command} loads ${heavy}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('the gateway clients (claw send, sessions, schedule, status) load no store, no kernel and no plugin but the gateway client', () => {
    for (const command of ['claw send', 'claw sessions list', 'claw schedule list', 'claw status', 'claw gateway status']) {
      const urls = perCommand.get(command)!;
      expect(urls, command).toBeDefined();
      const packages = packagesOf(urls);
      for (const name of ['typeorm', 'better-sqlite3', 'inversify', 'pg']) expect(packages.has(name), `${command} loads ${name}`).toBe(false);
      expect(distFilesOf(urls).filter((file) => file.startsWith('entities/') || file === 'plugins/sessions/index.js' || file === 'core/kernel.js'), command).toEqual([]);
    }
  });
});

describe('the SDK entry', () => {
  it('xdog/agent gives the Agent without loading the kernel, config or plugin machinery', () => {
    const record = path.join(tempDir('xdog-imports-'), 'record.tsv');
    fs.writeFileSync(record, '');
    const script = "const { Agent } = await import('xdog/agent'); const root = await import('xdog'); console.log(Agent === root.Agent);";
    // Run from the repository, so `xdog` resolves to this package through its own exports.
    const out = execFileSync(process.execPath, ['--import', REGISTER, '--input-type=module', '-e', script], { cwd: repoRoot, env: { ...process.env, XDOG_MODULE_RECORD: record }, encoding: 'utf8' });
    expect(out.trim()).toBe('true');
    // What the subpath alone pulled in: everything before the `xdog` root entry was imported.
    const lines = fs.readFileSync(record, 'utf8').split('\n');
    const rootAt = lines.findIndex((line) => line.endsWith('/dist/core/index.js'));
    expect(rootAt).toBeGreaterThan(0);
    const before = new Set(lines.slice(0, rootAt).map((line) => line.split('\t')[1] ?? ''));
    const packages = packagesOf(before);
    for (const name of ['inversify', 'yaml', 'reflect-metadata']) expect(packages.has(name), name).toBe(false);
    const files = distFilesOf(before);
    expect(files).toContain('core/agent/agent.js');
    for (const file of ['core/kernel.js', 'core/config.js', 'core/discovery.js']) expect(files, file).not.toContain(file);
  });
});

describe('what the built CLI loads when it runs', () => {
  const env = (): NodeJS.ProcessEnv => {
    const home = tempDir('xdog-imports-home-');
    return {
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, 'config'),
      XDG_DATA_HOME: path.join(home, 'data'),
      XDG_CACHE_HOME: path.join(home, 'cache'),
      XDG_RUNTIME_DIR: path.join(home, 'run'),
    };
  };

  it('a one-shot agent chat on a pipe never loads the interactive loop, the TTY prompt or the TUI', () => {
    const script = path.join(tempDir('xdog-imports-'), 'reply.json');
    fs.writeFileSync(script, JSON.stringify({ responses: [{ text: 'hello there' }] }));
    const run = recordCli(['agent', 'chat', 'faux/demo', 'hi'], { ...env(), XDOG_FAUX_SCRIPT: script });
    expect(run).toMatchObject({ status: 0, stdout: 'hello there\n' });
    const files = distFilesOf(run.loaded);
    expect(files).toContain('commands/agent/chat.js');
    expect(files.filter((file) => /commands\/agent\/_lib\/(interactive|approval-prompt)\.js$/.test(file))).toEqual([]);
    // The kernel imports every installed plugin: through their light faces none brings claw, the store or the TUI.
    const packages = packagesOf(run.loaded);
    for (const name of ['@mariozechner/pi-tui', 'typeorm', 'better-sqlite3', 'pg', 'pg-boss']) expect(packages.has(name), name).toBe(false);
    expect(files.filter((file) => /^(entities\/(index|claw-entities|claw-data-source)|plugins\/claw-gateway\/(gateway|group-runtime|index)|plugins\/sessions\/(store|index)|plugins\/claw-tui\/.*)\.js$/.test(file))).toEqual([]);
  });

  it('claw send loads no zod, no yaml and not the RPC server: it reads no config file and only says hello', () => {
    // No gateway runs in this home: the command gets as far as looking for its token.
    const run = recordCli(['claw', 'send', 'hi'], env());
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('no gateway token');
    expect(distFilesOf(run.loaded)).toContain('plugins/claw-gateway/client.js');
    const packages = packagesOf(run.loaded);
    for (const name of ['zod', 'yaml', 'inversify', 'typeorm']) expect(packages.has(name), name).toBe(false);
    expect(distFilesOf(run.loaded).filter((file) => /^core\/(config|rpc\/rpc-server|rpc\/index)\.js$/.test(file))).toEqual([]);
  });

  it('xdog --help loads oclif and no command, plugin or kernel package', () => {
    const run = recordCli(['--help'], env());
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('TOPICS');
    expect(distFilesOf(run.loaded)).toEqual([]);
    const packages = packagesOf(run.loaded);
    for (const name of ['zod', 'inversify', 'typeorm', 'yaml', 'tapable']) expect(packages.has(name), name).toBe(false);
  });
});
