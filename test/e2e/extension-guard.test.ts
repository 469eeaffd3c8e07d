/**
 * The example extension end to end through the built CLI: installed with
 * `xdog plugins install`, enabled in the config, its provider answering an
 * `xdog agent chat ext-…/v1` turn, its pre-tool veto blocking a write, and its
 * provider's error event ending a turn.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, runCli } from '../support/cli.js';
import { tempDir, writeTree } from '../support/temp.js';

const MODEL = 'ext-xdog-extension-guard-echo/v1';

describe('example extension xdog-extension-guard through `xdog agent chat`', { timeout: 120_000 }, () => {
  const root = tempDir('xdog-e2e-ext-');
  writeTree(root, { 'work/.keep': '' });
  const env = { XDG_CONFIG_HOME: path.join(root, 'config'), XDG_DATA_HOME: path.join(root, 'data'), XDG_CACHE_HOME: path.join(root, 'cache') };
  const cwd = path.join(root, 'work');
  const config = (text: string) => {
    fs.mkdirSync(path.join(root, 'config', 'xdog'), { recursive: true });
    fs.writeFileSync(path.join(root, 'config', 'xdog', 'config.yaml'), text);
  };

  it('is inert until enabled, then serves its model, vetoes protected writes and lets others run', () => {
    const install = runCli(['plugins', 'install', path.join(repoRoot, 'docs/examples/xdog-extension-guard')], { env, cwd });
    expect(install.stderr).toBe('');
    expect(install.status).toBe(0);
    expect(install.stdout).toMatch(/installed extension xdog-extension-guard 1\.0\.0/);

    // Installed but not listed under extensions: nothing runs, so its model is unknown.
    const inert = runCli(['agent', 'chat', MODEL, 'hi'], { env, cwd });
    expect(inert.status).toBe(2);
    expect(inert.stderr).toMatch(/no active provider "ext-xdog-extension-guard-echo"/);

    config('extensions: [xdog-extension-guard]\nextension_settings:\n  xdog-extension-guard: { protect: private }\n');
    const echo = runCli(['agent', 'chat', MODEL, 'hi there'], { env, cwd });
    expect(echo.stderr).toBe('');
    expect(echo.stdout).toBe('echo: hi there\n');
    expect(echo.status).toBe(0);

    const vetoed = runCli(['agent', 'chat', MODEL, 'write private.txt'], { env, cwd });
    expect(vetoed.status).toBe(0);
    expect(vetoed.stdout).toContain('tool said: Tool call blocked: extension "xdog-extension-guard": private.txt is protected by xdog-extension-guard');
    expect(fs.existsSync(path.join(cwd, 'private.txt'))).toBe(false);

    const allowed = runCli(['agent', 'chat', MODEL, 'write notes.txt'], { env, cwd });
    expect(allowed.status).toBe(0);
    expect(fs.readFileSync(path.join(cwd, 'notes.txt'), 'utf8')).toBe('written by the echo model\n');

    const failed = runCli(['agent', 'chat', MODEL, 'fail'], { env, cwd });
    expect(failed.status).toBe(1);
    expect(failed.stderr).toMatch(/the echo backend refused/);
  });
});

describe('extension_dir (B7)', { timeout: 120_000 }, () => {
  it('runs an enabled extension from the folder extension_dir names (relative to the config file), and refuses the same id installed too', () => {
    const root = tempDir('xdog-e2e-ext-dir-');
    writeTree(root, { 'work/.keep': '' });
    const env = { XDG_CONFIG_HOME: path.join(root, 'config'), XDG_DATA_HOME: path.join(root, 'data'), XDG_CACHE_HOME: path.join(root, 'cache') };
    const cwd = path.join(root, 'work');
    const configDir = path.join(root, 'config', 'xdog');
    fs.mkdirSync(configDir, { recursive: true });
    fs.cpSync(path.join(repoRoot, 'docs/examples/xdog-extension-guard'), path.join(configDir, 'extensions', 'xdog-extension-guard'), { recursive: true });
    fs.writeFileSync(path.join(configDir, 'config.yaml'), 'extensions: [xdog-extension-guard]\nextension_dir: extensions\n');

    const echo = runCli(['agent', 'chat', MODEL, 'hi from the folder'], { env, cwd });
    expect(echo.stderr).toBe('');
    expect(echo.stdout).toBe('echo: hi from the folder\n');
    expect(echo.status).toBe(0);

    // Installed as well: neither copy silently wins; the extension is not run and its model is unknown.
    expect(runCli(['plugins', 'install', path.join(repoRoot, 'docs/examples/xdog-extension-guard')], { env, cwd }).status).toBe(0);
    const both = runCli(['agent', 'chat', MODEL, 'hi'], { env, cwd });
    expect(both.status).not.toBe(0);
    expect(both.stdout).not.toContain('echo: hi');
  });
});
