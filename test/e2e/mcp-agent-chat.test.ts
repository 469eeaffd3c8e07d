import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { runCli } from '../support/cli.js';
import { tempDir } from '../support/temp.js';
import { EVERYTHING } from '../plugins/mcp/support.js';

function setup(allowTools: boolean): NodeJS.ProcessEnv {
  const dir = tempDir('xdog-mcp-chat-');
  const config = path.join(dir, 'config.yaml');
  fs.writeFileSync(config, stringify({ mcp_servers: { every: { command: process.execPath, args: [EVERYTHING, 'stdio'], allow_tools: allowTools, timeout: 30 } } }));
  const script = path.join(dir, 'script.json');
  fs.writeFileSync(
    script,
    JSON.stringify({ responses: [{ toolCalls: [{ name: 'every__echo', arguments: { message: 'via chat' } }] }, { text: 'all done' }] }),
  );
  return { XDOG_CONFIG: config, XDOG_FAUX_SCRIPT: script };
}

function toolResult(stdout: string): { isError: boolean; text: string } {
  const events = stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, any>);
  const end = events.find((event) => event.type === 'tool_end');
  expect(end).toBeDefined();
  return { isError: end!.isError, text: JSON.stringify(end!.result ?? end) };
}

describe('xdog agent chat --mcp (built CLI, faux model, server-everything)', () => {
  it('gives the agent the server tools and runs them when allow_tools is true', () => {
    const result = runCli(['agent', 'chat', 'faux/demo', '--no-tools', '--mcp', 'every', '--json', 'echo please'], { env: setup(true) });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(toolResult(result.stdout)).toMatchObject({ isError: false, text: expect.stringContaining('Echo: via chat') });
  });

  it('blocks them without allow_tools', () => {
    const result = runCli(['agent', 'chat', 'faux/demo', '--no-tools', '--mcp', 'every', '--json', 'echo please'], { env: setup(false) });
    expect(result.status).toBe(0);
    expect(toolResult(result.stdout)).toMatchObject({ isError: true, text: expect.stringContaining('not allowed to run tools') });
  });

  it('names an unknown server', () => {
    const result = runCli(['agent', 'chat', 'faux/demo', '--no-tools', '--mcp', 'nope', 'hi'], { env: setup(true) });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/no MCP server "nope" is registered \[NOT_FOUND\]/);
  });
});
