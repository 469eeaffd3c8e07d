/** Sandbox policy resolution, the claw group default, the proxy's host rule and the seccomp program's shape. */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../core/index.js';
import { groupSandboxConfig, hostAllowed, resolvePolicy, seccompProgram } from '../../../plugins/sandbox/index.js';
import { withGroupSandbox } from '../../../plugins/claw-gateway/group-sandbox.js';

const claw = parseConfig(`
sandbox: { mode: read-only }
claw:
  groups:
    chat: { workspace: /w/chat, model: faux/demo }
    quiet: { workspace: /w/quiet, model: faux/demo }
    own: { workspace: /w/own, model: faux/demo, sandbox: { mode: workspace-write, network: { allow: [example.com] }, writable: [cache] } }
  channels:
    hook: { type: webhook, group: chat, allow_from: ["*"] }
`);

describe('sandbox policy', () => {
  it('defaults a channel-fed group to workspace-write with network off, other groups to off, and keeps a group\'s own', () => {
    expect(groupSandboxConfig(claw.claw, 'chat')).toEqual({ config: { mode: 'workspace-write', network: 'off' }, source: 'channel default' });
    expect(groupSandboxConfig(claw.claw, 'quiet')).toEqual({ config: undefined, source: 'default' });
    expect(resolvePolicy(groupSandboxConfig(claw.claw, 'own').config, '/w/own')).toEqual({ mode: 'workspace-write', network: { kind: 'allow', hosts: ['example.com'] }, writable: ['/w/own/cache'] });
    // A group kernel carries its group's sandbox, never the top-level one meant for agent chat.
    expect(withGroupSandbox(claw, 'quiet').sandbox).toBeUndefined();
    expect(withGroupSandbox(claw, 'chat').sandbox).toEqual({ mode: 'workspace-write', network: 'off' });
  });

  it('rejects unknown modes and malformed hosts with the key path', () => {
    expect(() => parseConfig('sandbox: { mode: full }')).toThrow(/sandbox\.mode/);
    expect(() => parseConfig('sandbox: { mode: read-only, network: { allow: ["http://x"] } }')).toThrow(/sandbox\.network/);
  });

  it('lets exact hosts and subdomains of *. entries through the proxy, nothing else', () => {
    expect(hostAllowed('Example.com', ['example.com'])).toBe(true);
    expect(hostAllowed('api.example.com', ['*.example.com'])).toBe(true);
    expect(hostAllowed('example.com', ['*.example.com'])).toBe(false);
    expect(hostAllowed('evilexample.com', ['*.example.com'])).toBe(false);
    expect(hostAllowed('127.0.0.1', ['localhost'])).toBe(false);
  });

  it('builds a program of whole 8-byte instructions that starts with the architecture check', () => {
    const program = seccompProgram({ arch: 'x64', denyUnixSockets: true });
    expect(program.length % 8).toBe(0);
    expect(program.readUInt32LE(4)).toBe(4); // load seccomp_data.arch
    expect(program.readUInt32LE(12)).toBe(0xc000003e);
    expect(seccompProgram({ arch: 'x64', denyUnixSockets: false }).length).toBeLessThan(program.length);
  });
});
