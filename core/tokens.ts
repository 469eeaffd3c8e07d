/**
 * DI tokens. Each is a symbol named like the interface it stands for; a host
 * module may `rebind` any of them. `Symbol.for` keeps tokens identical across
 * two copies of xdog in one process (a plugin with its own nested install).
 */
import type { Kernel } from './kernel.js';
import type { XdogConfig } from './config.js';

/** A typed service identifier. */
export type Token<T> = symbol & { readonly __service?: T };

export function token<T>(name: string): Token<T> {
  return Symbol.for(`xdog:${name}`) as Token<T>;
}

/** Time source; tests rebind it to a fake. */
export interface Clock {
  now(): number;
  /**
   * A clock whose time can jump (a test's fake clock) tells its listeners
   * here, so timers driven by it re-check at once; returns a disposer. The
   * system clock has none: its waiters re-check on their own schedule.
   */
  onChange?(listener: () => void): () => void;
}

export class SystemClockImpl implements Clock {
  now(): number {
    return Date.now();
  }
}

/** The kernel itself. */
export const KernelToken = token<Kernel>('Kernel');
/** The validated configuration the kernel was built with. */
export const Config = token<XdogConfig>('Config');
/** The working directory commands and tools are relative to. */
export const WorkingDirectory = token<string>('WorkingDirectory');
export const ClockToken = token<Clock>('Clock');

/** Multi-binding: model providers (collected by the model registry). */
export const ModelProviderContribution = token<import('./model/types.js').ModelProvider>('ModelProvider');
/** Multi-binding: tools a plugin contributes (collected into the host's ToolRepo). */
export const ToolContribution = token<import('./agent/tool-types.js').AgentTool>('Tool');
/** The model registry service; hosts may rebind it (see core/model/registry.ts). */
export const ModelRegistryToken = token<import('./model/registry.js').ModelRegistry>('ModelRegistry');
/** The credential store for provider logins and API keys (see core/credentials.ts). */
export const CredentialStoreToken = token<import('./credentials.js').CredentialStore>('CredentialStore');
/** Multi-binding: capability providers a plugin contributes (opened by a CapabilitySet when selected). */
export const CapabilityContribution = token<import('./capabilities/types.js').CapabilityProvider>('Capability');
/** The claw store's typeorm DataSource (SQLite by default); a host may rebind it, e.g. to PostgreSQL. */
export const ClawDataSourceToken = token<import('typeorm').DataSource>('ClawDataSource');
/** Asks a person about a tool call a `beforeToolCall` tap answered with `ask` (see core/approvals.ts); unbound, an ask is a denial. */
export const ApprovalBrokerToken = token<import('./approvals.js').ApprovalBroker>('ApprovalBroker');
