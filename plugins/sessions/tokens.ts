/**
 * The sessions plugin's light public face: the store's token, its types and
 * the helpers that need neither typeorm nor the store's implementation, for
 * plugins that load in every kernel (docs/architecture.md, "Import cost").
 * `index.ts` re-exports all of it; another plugin may import this file or
 * index.ts, nothing else of this folder.
 */
import type { DataSource } from 'typeorm';
import { ErrorCodes, XdogError, token, type Kernel } from '../../core/index.js';
import type { SessionStore } from './types.js';

export * from './types.js';
export { checkSessionName } from './names.js';
export { messagePreview } from './checkpoints.js';
export { readWholeTree, treeOutline, treePages, type NextTreePage, type SessionTree, type TreePageReader } from './tree-pages.js';
export { MAX_ROW_ID } from './rows.js';
export { checkUsage, insertUsage, spentSince } from './ledger.js';
export { compactionSummaryMessage, branchSummaryMessage } from './context.js';
export { DamagedStore, storedJson } from './stored.js';
export { processAlive } from './leases.js';
export { lockSessionPath, appendInTransaction } from './entries-in-transaction.js';
export { retryingConflicts, type Sql, type TransactionOptions } from './sql.js';

/** Opens a kernel's session store on demand (once); the store stays open until the kernel closes. */
export interface ClawStore {
  open(): Promise<SessionStore>;
  /** The store's DataSource (opening the store if needed), for gateway services that keep their own tables in it. */
  dataSource(): Promise<DataSource>;
  /** Where the store lives (a file, a PostgreSQL URL without its password, or the host DataSource's type), once open. */
  readonly location: string | undefined;
}

export const ClawStoreToken = token<ClawStore>('ClawStore');

/** Fails with a hint when a kernel has no sessions plugin. */
export function clawStoreOf(kernel: Kernel): ClawStore {
  if (!kernel.isBound(ClawStoreToken)) {
    throw new XdogError(ErrorCodes.INVALID_STATE, 'no claw store: the sessions plugin is not loaded', { hint: 'select the built-in "sessions" plugin' });
  }
  return kernel.get(ClawStoreToken);
}
