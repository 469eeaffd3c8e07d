/**
 * The `sessions` plugin's definition, the entry the kernel imports: the claw session store. It is inert: selecting and
 * opening the plugin opens no database. `ClawStoreToken` opens the store on
 * first use — the DataSource a host module bound to ClawDataSourceToken
 * (e.g. PostgreSQL, built with CLAW_ENTITIES and CLAW_MIGRATIONS), else the
 * one `claw.store` names (default SQLite at `$XDG_DATA_HOME/xdog/claw/claw.db`;
 * PostgreSQL with its URL from the variable `url_env` names)
 * — and brings its schema up to date. Closing the kernel closes what it opened.
 */
import type { DataSource } from 'typeorm';
import { ClawDataSourceToken, ClockToken, ContainerModule, Config, KernelToken, definePlugin, type Kernel, type XdogConfig } from '../../core/index.js';
import { ClawStoreToken, type ClawStore } from './tokens.js';
import type { SessionStore } from './types.js';

// The store and typeorm load on the first open(), not with the plugin: a kernel that never opens it never loads them.
const loadStore = () => Promise.all([import('../../entities/index.js'), import('./store.js')]);

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
    const [{ clawStoreLocation, describeClawStore, migrateClawStore, openClawDataSource }, { TypeormSessionStore }] = await loadStore();
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
