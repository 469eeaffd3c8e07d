/**
 * A sandbox policy resolved for one place (a kernel's tools, one MCP server,
 * one extension worker): the config's `sandbox:` entry with its defaults
 * filled in and its writable paths made absolute.
 */
import os from 'node:os';
import path from 'node:path';
import type { ClawConfig, SandboxConfig, XdogConfig } from '../../core/index.js';

export type SandboxMode = SandboxConfig['mode'];

export type SandboxNetwork = { kind: 'off' } | { kind: 'on' } | { kind: 'allow'; hosts: string[] };

export interface SandboxPolicy {
  mode: SandboxMode;
  network: SandboxNetwork;
  /** Absolute extra paths bound read-write in workspace-write (read-only in read-only). */
  writable: string[];
}

export const SANDBOX_OFF: SandboxPolicy = Object.freeze({ mode: 'off', network: { kind: 'on' }, writable: [] }) as SandboxPolicy;

/** The default of a claw group that takes channel input: its workspace writable, nothing else, no network. */
export const CHANNEL_GROUP_DEFAULT: SandboxConfig = Object.freeze({ mode: 'workspace-write', network: 'off' }) as SandboxConfig;

function expandHome(value: string): string {
  return value === '~' || value.startsWith('~/') ? path.join(os.homedir(), value.slice(1)) : value;
}

/** Fills in defaults: network off unless said otherwise, writable paths absolute against `base`. */
export function resolvePolicy(config: SandboxConfig | undefined, base: string): SandboxPolicy {
  if (!config || config.mode === 'off') return SANDBOX_OFF;
  const network = config.network;
  return {
    mode: config.mode,
    network: network === undefined || network === 'off' ? { kind: 'off' } : network === 'on' ? { kind: 'on' } : { kind: 'allow', hosts: [...network.allow] },
    writable: (config.writable ?? []).map((entry) => path.resolve(base, expandHome(entry))),
  };
}

/** The sandbox config a kernel's own tools use (top-level `sandbox:`; a claw group's kernel carries its group's there). */
export function kernelSandboxConfig(config: XdogConfig): SandboxConfig | undefined {
  return config.sandbox;
}

/** A claw group's sandbox config: its own `sandbox:`, else workspace-write with network off when a channel feeds it, else none (off). */
export function groupSandboxConfig(claw: ClawConfig | undefined, group: string): { config: SandboxConfig | undefined; source: 'group' | 'channel default' | 'default' } {
  const own = claw?.groups?.[group]?.sandbox;
  if (own) return { config: own, source: 'group' };
  const fedByChannel = Object.values(claw?.channels ?? {}).some((channel) => channel.group === group);
  return fedByChannel ? { config: CHANNEL_GROUP_DEFAULT, source: 'channel default' } : { config: undefined, source: 'default' };
}

/** One line for status output: "workspace-write, network off", "off", ... */
export function describePolicy(policy: SandboxPolicy): string {
  if (policy.mode === 'off') return 'off';
  const network = policy.network.kind === 'allow' ? `network allow ${policy.network.hosts.join(', ')}` : `network ${policy.network.kind}`;
  return [policy.mode, network, ...(policy.writable.length ? [`writable ${policy.writable.join(', ')}`] : [])].join(', ');
}
