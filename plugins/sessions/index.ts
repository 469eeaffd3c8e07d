/**
 * The `sessions` plugin: the claw session store. It binds ClawDataSourceToken
 * and SessionStoreToken, and is inert until the kernel opens it: `open()`
 * opens the store named by `claw.store` (default SQLite at
 * `$XDG_DATA_HOME/xdog/claw/claw.db`) and brings its schema up to date, or
 * uses the DataSource a host module bound instead (e.g. PostgreSQL, built
 * with CLAW_ENTITIES and CLAW_MIGRATIONS from the entities).
 */
import type { DataSource } from 'typeorm';
import { ClawDataSourceToken, ContainerModule, ErrorCodes, KernelToken, XdogError, definePlugin, token, type Kernel, type PluginContext } from '../../core/index.js';
import { clawStoreLocation, openClawDataSource } from '../../entities/index.js';
import { TypeormSessionStore } from './store.js';
import type { SessionStore } from './types.js';

export * from './types.js';
export { TypeormSessionStore, openSessionStore, type SessionStoreOptions } from './store.js';
export { checkSessionName } from './names.js';
export { compactionSummaryMessage, branchSummaryMessage } from './context.js';

/** The session store of a kernel (bound by the `sessions` plugin; usable after `kernel.open()`). */
export const SessionStoreToken = token<SessionStore>('SessionStore');

interface Opened {
  dataSource: DataSource;
  /** True when this plugin opened the DataSource (so it closes it too). */
  owned: boolean;
}

/** What this plugin opened, by kernel: closing one kernel closes only its own. */
const opened = new Map<Kernel, Opened>();
const NOT_OPEN = 'the claw store is not open yet';

function notOpen(): XdogError {
  return new XdogError(ErrorCodes.INVALID_STATE, NOT_OPEN, { hint: 'the sessions plugin opens it in kernel.open()' });
}

export default definePlugin({
  name: 'sessions',
  provides: {},
  module: new ContainerModule(({ bind }) => {
    bind(ClawDataSourceToken).toDynamicValue((context) => {
      const found = opened.get(context.get<Kernel>(KernelToken));
      if (!found) throw notOpen();
      return found.dataSource;
    });
    bind(SessionStoreToken)
      .toDynamicValue((context) => new TypeormSessionStore(context.get<DataSource>(ClawDataSourceToken)))
      .inSingletonScope();
  }),
  async open({ kernel }: PluginContext) {
    let bound: DataSource | undefined;
    try {
      bound = kernel.get(ClawDataSourceToken);
    } catch (error) {
      if (!(XdogError.is(error) && error.message === NOT_OPEN)) throw error;
    }
    if (bound) {
      const owned = !bound.isInitialized;
      if (owned) await bound.initialize();
      await bound.runMigrations({ transaction: 'all' });
      opened.set(kernel, { dataSource: bound, owned });
      return;
    }
    opened.set(kernel, { dataSource: await openClawDataSource(clawStoreLocation(kernel.config.claw?.store)), owned: true });
  },
  async close({ kernel }: PluginContext) {
    const found = opened.get(kernel);
    opened.delete(kernel);
    if (!found) return;
    if (kernel.isBound(SessionStoreToken)) {
      try {
        await kernel.get(SessionStoreToken).close();
      } catch {
        // The store was never created (nothing to wait for).
      }
    }
    if (found.owned && found.dataSource.isInitialized) await found.dataSource.destroy();
  },
});
