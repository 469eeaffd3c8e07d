import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ErrorCodes, loadConfig, parseConfig, XdogError } from '../../core/index.js';
import { tempDir, writeTree } from '../support/temp.js';

function configError(text: string): XdogError {
  try {
    parseConfig(text, 'config.yaml');
  } catch (error) {
    if (error instanceof XdogError) return error;
    throw error;
  }
  throw new Error('expected parseConfig to fail');
}

describe('config file', () => {
  it('parses the documented shape', () => {
    const config = parseConfig(
      ['model: openai/gpt-5.1', 'providers:', '  openai: { api_key_env: OPENAI_API_KEY }', 'models:', '  - { id: local/qwen3, context_window: 32768, input: [text] }'].join('\n'),
    );
    expect(config.model).toBe('openai/gpt-5.1');
    expect(config.providers?.openai?.api_key_env).toBe('OPENAI_API_KEY');
    expect(config.models?.[0]?.context_window).toBe(32768);
  });

  it('names an unknown key with its path and line', () => {
    const error = configError(['model: a/b', 'providers:', '  openai:', '    api_key: sk-secret'].join('\n'));
    expect(error.code).toBe(ErrorCodes.CONFIG_INVALID);
    expect(error.message).toContain('config.yaml:4: providers.openai.api_key: unknown key');
    expect(error.exitCode).toBe(2);
  });

  it('names a wrong type with its line', () => {
    const error = configError(['model: a/b', 'models:', '  - id: local/x', '    context_window: lots'].join('\n'));
    expect(error.message).toMatch(/config\.yaml:4: models\.0\.context_window: /);
  });

  it('reports YAML syntax errors with a line', () => {
    expect(configError('model: [unclosed\nother: 1').message).toMatch(/config\.yaml:\d+: YAML syntax error/);
  });

  it('treats a missing default file as empty, but a missing explicit file as an error', () => {
    const home = tempDir();
    const previous = { XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME, XDOG_CONFIG: process.env.XDOG_CONFIG };
    process.env.XDG_CONFIG_HOME = home;
    delete process.env.XDOG_CONFIG;
    try {
      expect(loadConfig()).toEqual({ config: {} });
      expect(() => loadConfig(path.join(home, 'nope.yaml'))).toThrow(/cannot read config file/);
      writeTree(home, { 'xdog/config.yaml': 'model: faux/demo\n' });
      expect(loadConfig().config.model).toBe('faux/demo');
    } finally {
      for (const [key, value] of Object.entries(previous)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  });
});
