/**
 * The store a gateway serves, from the kernel's `sessions` plugin: a host's
 * DataSource bound to ClawDataSourceToken, else the SQLite file `claw.store`
 * names (default `$XDG_DATA_HOME/xdog/claw/claw.db`).
 */
import type { DataSource } from 'typeorm';
import type { Kernel } from '../../core/index.js';
import type { SessionStore } from '../sessions/tokens.js';

export interface OpenedStore {
  store: SessionStore;
  /** The store's DataSource, for gateway services with tables of their own. */
  dataSource: DataSource;
  /** Shown in status and logs. */
  location: string;
}

/** Opens the kernel's claw store; the kernel's close() closes it. */
export async function openConfiguredStore(kernel: Kernel): Promise<OpenedStore> {
  // Loaded here, not at import: clients of the gateway never need typeorm.
  const { clawStoreOf } = await import('../sessions/index.js');
  const clawStore = clawStoreOf(kernel);
  const store = await clawStore.open();
  return { store, dataSource: await clawStore.dataSource(), location: clawStore.location ?? 'unknown' };
}
