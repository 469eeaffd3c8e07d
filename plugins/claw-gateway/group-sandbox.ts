/**
 * A claw group's sandbox: its own `sandbox:`, else workspace-write with the
 * network off when a channel feeds it (people nobody vetted write to it),
 * else off. The group's kernel carries it as its top-level `sandbox`, which is
 * what the tools, MCP and extensions plugins read.
 */
import type { XdogConfig } from '../../core/index.js';
import { describePolicy, groupSandboxConfig, resolvePolicy } from '../sandbox/index.js';

/** The config a group's kernel gets: the gateway's, with the group's sandbox in place of the top-level one. */
export function withGroupSandbox(config: XdogConfig, group: string): XdogConfig {
  const { config: sandbox } = groupSandboxConfig(config.claw, group);
  const { sandbox: _outside, ...rest } = config;
  return sandbox ? { ...rest, sandbox } : rest;
}

/** "workspace-write, network off (channel default)", for status. */
export function groupSandboxLine(config: XdogConfig, group: string, workspace: string): string {
  const { config: sandbox, source } = groupSandboxConfig(config.claw, group);
  return `${describePolicy(resolvePolicy(sandbox, workspace))} (${source})`;
}
