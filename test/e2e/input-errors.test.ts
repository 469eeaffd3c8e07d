/**
 * Hostile or mistaken files and values a person hands the CLI: each is a
 * typed error with the file and line, never INTERNAL and never silently
 * dropped.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { tempDir } from '../support/temp.js';

const BOMB = ['a: &a ["x","x","x","x","x","x","x","x","x"]', ...'bcdef'.split('').map((name, index) => `${name}: &${name} [${Array(9).fill(`*${'abcdef'[index]}`).join(',')}]`)].join('\n');

function setup() {
  const root = tempDir('xdog-e2e-input-');
  const env = { XDG_CONFIG_HOME: path.join(root, 'config'), XDG_DATA_HOME: path.join(root, 'data'), XDOG_CONFIG: '' };
  const file = (name: string, text: string): string => {
    const full = path.join(root, name);
    fs.writeFileSync(full, text);
    return full;
  };
  return { env, file, cli: (...args: string[]) => runCli(args, { env, cwd: root }) };
}

describe('config and Flow files a person writes', { timeout: 120_000 }, () => {
  it('config: an alias bomb, a __proto__ key, an out-of-range timeout and HTTP MCP URLs with credentials or a fragment are CONFIG_INVALID with their lines', () => {
    const { file, cli } = setup();
    const bomb = cli('agent', 'models', '--config', file('bomb.yaml', `model: faux/demo\n${BOMB}\n`));
    expect(bomb.status).not.toBe(0);
    expect(bomb.stderr).toMatch(/^xdog: invalid config: .*bomb\.yaml:3: YAML aliases from this line on expand to more than 100 copies \(an alias bomb\) \[CONFIG_INVALID\]/);

    const proto = cli('agent', 'models', '--config', file('proto.yaml', 'providers:\n  __proto__: { api_key_env: X }\n'));
    expect(proto.stderr).toMatch(/^xdog: invalid config: .*proto\.yaml:2: providers\.__proto__: "__proto__" cannot be used as a key \[CONFIG_INVALID\] \(rename that key\)\n$/);

    const values = cli(
      'agent',
      'models',
      '--config',
      file(
        'values.yaml',
        [
          'providers:',
          '  openai: { api_key_env: OPENAI_API_KEY, timeout: 3000000 }',
          'mcp_servers:',
          '  creds: { transport: http, url: "https://user:secret@example.test/mcp" }',
          '  frag: { transport: http, url: "https://example.test/mcp#top" }',
          '  other: { transport: http, url: "file:///etc/passwd" }',
        ].join('\n'),
      ),
    );
    expect(values.status).not.toBe(0);
    expect(values.stderr).toContain('values.yaml:2: providers.openai.timeout: Too big: expected number to be <=86400');
    expect(values.stderr).toContain('values.yaml:4: mcp_servers.creds.url: must not carry a user name or password; put credentials in headers_env');
    expect(values.stderr).toContain('values.yaml:5: mcp_servers.frag.url: must not have a #fragment (it is never sent to the server)');
    expect(values.stderr).toContain('values.yaml:6: mcp_servers.other.url: must be an http:// or https:// URL');
    expect(values.stderr).toContain('[CONFIG_INVALID]');
    expect(values.stderr).not.toContain('secret');
  });

  it('Flow: an alias bomb and __proto__ under inputs: or output: are FLOW_INVALID with their lines', () => {
    const { file, cli } = setup();
    const body = (inputs: string, output: string) =>
      ['flow: f', 'inputs:', `  ${inputs}: { type: string }`, 'steps:', '  - id: clock', '    tool: current_time', 'output:', `  ${output}: "{{ steps.clock.output }}"`].join('\n');
    const cases: Array<[string, string, RegExp]> = [
      ['bomb.yaml', `flow: b\n${BOMB}\n`, /bomb\.yaml:3: YAML aliases from this line on expand to more than 100 copies/],
      ['in.yaml', body('__proto__', 'value'), /in\.yaml:3: inputs\.__proto__: "__proto__" cannot be used as a key \(fix: rename that key\)/],
      ['out.yaml', body('topic', '__proto__'), /out\.yaml:8: output\.__proto__: "__proto__" cannot be used as a key/],
    ];
    for (const [name, text, message] of cases) {
      const result = cli('flow', 'validate', file(name, text));
      expect(result.status, name).toBe(1);
      expect(result.stderr).toMatch(message);
      const json = cli('flow', 'validate', file(name, text), '--json');
      expect((JSON.parse(json.stdout) as { error: { code: string } }).error.code).toBe('FLOW_INVALID');
    }
  });

  it('flow run -i with deeply nested JSON is a usage error, not a stack overflow', () => {
    const { file, cli } = setup();
    const flow = file('deep.yaml', ['flow: deep', 'inputs:', '  data: { type: array }', 'steps:', '  - id: clock', '    tool: current_time', 'output:', '  value: "{{ inputs.data }}"'].join('\n'));
    const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
    const result = cli('flow', 'run', flow, '-i', `data=${deep}`, '--model', 'faux/demo');
    expect(result.status).toBe(2);
    expect(result.stderr).toBe('xdog: input "data" nests more than 128 levels deep [USAGE] (pass a flatter JSON value)\n');
    const shallow = cli('flow', 'run', flow, '-i', 'data=[[1]]', '--model', 'faux/demo', '--json');
    expect(shallow.status).toBe(0);
  });
});
