/**
 * Opens the store a gateway serves: a DataSource a host bound to
 * `ClawDataSourceToken` (e.g. PostgreSQL), else the SQLite file named by
 * `claw.store.path` (default `$XDG_DATA_HOME/xdog/claw/claw.db`).
 */
import path from 'node:path';
import { ClawDataSourceToken, dataDir, type Kernel } from '../../core/index.js';
import { openClawDataSource } from '../../entities/index.js';
import { openSessionStore, type SessionStore } from '../sessions/index.js';

export interface OpenedStore {
  store: SessionStore;
  /** Shown in status and logs. */
  location: string;
}

/** The default SQLite file of the claw store. */
export function defaultStoreFile(): string {
  return path.join(dataDir(), 'claw', 'claw.db');
}

export async function openConfiguredStore(kernel: Kernel): Promise<OpenedStore> {
  if (kernel.isBound(ClawDataSourceToken)) {
    const dataSource = kernel.get(ClawDataSourceToken);
    return { store: await openSessionStore(dataSource), location: `${dataSource.options.type} (host DataSource)` };
  }
  const configured = kernel.config.claw?.store;
  const file = path.resolve(configured?.path ?? defaultStoreFile());
  const dataSource = await openClawDataSource({ type: 'sqlite', file });
  return { store: await openSessionStore(dataSource), location: file };
}
