/**
 * The `sessions` plugin: the claw session store. It is inert: selecting and
 * opening the plugin opens no database. `ClawStoreToken` opens the store on
 * first use — the DataSource a host module bound to ClawDataSourceToken
 * (e.g. PostgreSQL, built with CLAW_ENTITIES and CLAW_MIGRATIONS), else the
 * one `claw.store` names (default SQLite at `$XDG_DATA_HOME/xdog/claw/claw.db`;
 * PostgreSQL with its URL from the variable `url_env` names)
 * — and brings its schema up to date. Closing the kernel closes what it opened.
 */
import type { DataSource } from 'typeorm';
import { ClawDataSourceToken, ClockToken, ContainerModule, Config, ErrorCodes, KernelToken, XdogError, definePlugin, token, type Kernel, type XdogConfig } from '../../core/index.js';
import { clawStoreLocation, describeClawStore, migrateClawStore, openClawDataSource } from '../../entities/index.js';
import { TypeormSessionStore } from './store.js';
import type { SessionStore } from './types.js';

export * from './types.js';
export { TypeormSessionStore, openSessionStore, type SessionStoreOptions } from './store.js';
export { checkSessionName } from './names.js';
export { readWholeTree, treeOutline, treePages, type NextTreePage, type SessionTree, type TreePageReader } from './tree-pages.js';
export { MAX_ROW_ID } from './rows.js';
export { checkUsage, insertUsage, spentSince } from './ledger.js';
export { compactionSummaryMessage, branchSummaryMessage } from './context.js';
export { lockSessionPath, appendInTransaction } from './entries-in-transaction.js';
export { retryingConflicts, type Sql, type TransactionOptions } from './sql.js';
export { DamagedStore, storedJson } from './stored.js';
export { processAlive } from './leases.js';

/** Opens a kernel's session store on demand (once); the store stays open until the kernel closes. */
export interface ClawStore {
  open(): Promise<SessionStore>;
  /** The store's DataSource (opening the store if needed), for gateway services that keep their own tables in it. */
  dataSource(): Promise<DataSource>;
  /** Where the store lives (a file, a PostgreSQL URL without its password, or the host DataSource's type), once open. */
  readonly location: string | undefined;
}

export const ClawStoreToken = token<ClawStore>('ClawStore');

class ClawStoreImpl implements ClawStore {
  location: string | undefined;
  #opening?: Promise<{ store: SessionStore; dataSource: DataSource; owned: boolean }>;
  readonly #kernel: Kernel;
  readonly #config: XdogConfig;

  constructor(kernel: Kernel, config: XdogConfig) {
    this.#kernel = kernel;
    this.#config = config;
  }

  async open(): Promise<SessionStore> {
    this.#opening ??= this.#open();
    return (await this.#opening).store;
  }

  async dataSource(): Promise<DataSource> {
    this.#opening ??= this.#open();
    return (await this.#opening).dataSource;
  }

  async #open(): Promise<{ store: SessionStore; dataSource: DataSource; owned: boolean }> {
    if (this.#kernel.isBound(ClawDataSourceToken)) {
      const dataSource = this.#kernel.get(ClawDataSourceToken);
      const owned = !dataSource.isInitialized;
      if (owned) await dataSource.initialize();
      await migrateClawStore(dataSource);
      this.location = `${dataSource.options.type} (host DataSource)`;
      return { store: new TypeormSessionStore(dataSource, { clock: this.#kernel.get(ClockToken) }), dataSource, owned };
    }
    const location = clawStoreLocation(this.#config.claw?.store);
    const dataSource = await openClawDataSource(location);
    this.location = describeClawStore(location);
    return { store: new TypeormSessionStore(dataSource, { clock: this.#kernel.get(ClockToken) }), dataSource, owned: true };
  }

  /** Closes the store and the DataSource it opened (a host's initialized DataSource stays open). */
  async close(): Promise<void> {
    const opening = this.#opening;
    this.#opening = undefined;
    if (!opening) return;
    const opened = await opening.catch(() => undefined);
    if (!opened) return;
    await opened.store.close();
    if (opened.owned && opened.dataSource.isInitialized) await opened.dataSource.destroy();
  }
}

export default definePlugin({
  name: 'sessions',
  provides: {},
  module: new ContainerModule(({ bind }) => {
    bind(ClawStoreToken)
      .toDynamicValue((context) => new ClawStoreImpl(context.get<Kernel>(KernelToken), context.get<XdogConfig>(Config)))
      .inSingletonScope();
  }),
  async close({ kernel }) {
    const store = kernel.get(ClawStoreToken);
    if (store instanceof ClawStoreImpl) await store.close();
  },
});

/** Fails with a hint when a kernel has no sessions plugin. */
export function clawStoreOf(kernel: Kernel): ClawStore {
  if (!kernel.isBound(ClawStoreToken)) {
    throw new XdogError(ErrorCodes.INVALID_STATE, 'no claw store: the sessions plugin is not loaded', { hint: 'select the built-in "sessions" plugin' });
  }
  return kernel.get(ClawStoreToken);
}
