import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { runCli } from '../support/cli.js';
import { tempDir } from '../support/temp.js';
import { EVERYTHING } from '../plugins/mcp/support.js';

function configFile(servers: Record<string, unknown>): string {
  const dir = tempDir('xdog-mcp-cli-');
  const file = path.join(dir, 'config.yaml');
  fs.writeFileSync(file, stringify({ mcp_servers: servers }));
  return file;
}

const everything = { command: process.execPath, args: [EVERYTHING, 'stdio'], env: { SHHH: 'env-secret-value' }, timeout: 30 };

describe('xdog mcp (built CLI against server-everything)', () => {
  const config = configFile({ everything });
  const env = { XDOG_CONFIG: config };

  it('lists configured servers without connecting or showing env values', () => {
    const result = runCli(['mcp', 'list', '--json'], { env });
    expect(result.status).toBe(0);
    const [status] = JSON.parse(result.stdout);
    expect(status).toMatchObject({ id: 'everything', state: 'registered', envNames: ['SHHH'] });
    expect(result.stdout).not.toContain('env-secret-value');
  });

  it('lists tools and calls one', () => {
    const tools = runCli(['mcp', 'tools', 'everything'], { env });
    expect(tools.status).toBe(0);
    expect(tools.stdout).toMatch(/^everything__echo /m);
    const call = runCli(['mcp', 'call', 'everything', 'echo', '{"message":"from the cli"}'], { env });
    expect(call.status).toBe(0);
    expect(call.stdout.trim()).toBe('Echo: from the cli');
  });

  it('fails a call with bad arguments with one clear line', () => {
    const call = runCli(['mcp', 'call', 'everything', 'get-sum', '{"a":"x","b":1}'], { env });
    expect(call.status).not.toBe(0);
    expect(call.stderr).toMatch(/^xdog: arguments of everything__get-sum do not match the schema: \/a must be number \[INVALID_ARGUMENT\]/m);
  });

  it('exits 1 on a tool error result and prints its content; --json gives the typed result', () => {
    const failed = runCli(['mcp', 'call', 'everything', 'gzip-file-as-resource', '{"name":"x.gz","data":"ftp://example.invalid/x"}'], { env });
    expect(failed.status).toBe(1);
    expect(failed.stdout).toMatch(/Unsupported URL protocol/);
    const image = runCli(['mcp', 'call', 'everything', 'get-tiny-image', '--json'], { env });
    expect(image.status).toBe(0);
    const result = JSON.parse(image.stdout);
    expect(result.details.blocks.map((block: { contentType: string }) => block.contentType)).toContain('image');
    expect(result.isError).toBe(false);
  });

  it('reads resources and prompts', () => {
    const resources = runCli(['mcp', 'resources', 'everything'], { env });
    expect(resources.status).toBe(0);
    expect(resources.stdout).toMatch(/demo:\/\/resource\/static/);
    const read = runCli(['mcp', 'read', 'everything', 'demo://resource/dynamic/text/2'], { env });
    expect(read.status).toBe(0);
    expect(read.stdout).toMatch(/Resource 2/);
    const prompts = runCli(['mcp', 'prompts', 'everything'], { env });
    expect(prompts.stdout).toMatch(/^completable-prompt department name/m);
    const prompt = runCli(['mcp', 'prompt', 'everything', 'completable-prompt', '{"department":"Support","name":"Kim"}'], { env });
    expect(prompt.status).toBe(0);
    expect(prompt.stdout).toMatch(/\[user\] Please promote Kim to the head of the Support team/);
  });

  it('names an unknown server with the configured ones', () => {
    const result = runCli(['mcp', 'tools', 'nope'], { env });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/no MCP server "nope" in the config file \[NOT_FOUND\] \(configured: everything/);
  });
});
