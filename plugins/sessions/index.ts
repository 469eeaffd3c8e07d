/**
 * The `sessions` plugin: the claw session store. It is inert: selecting and
 * opening the plugin opens no database. `ClawStoreToken` opens the store on
 * first use — the DataSource a host module bound to ClawDataSourceToken
 * (e.g. PostgreSQL, built with CLAW_ENTITIES and CLAW_MIGRATIONS), else the
 * one `claw.store` names (default SQLite at `$XDG_DATA_HOME/xdog/claw/claw.db`;
 * PostgreSQL with its URL from the variable `url_env` names)
 * — and brings its schema up to date. Closing the kernel closes what it opened.
 */
export * from './tokens.js';
export { TypeormSessionStore, openSessionStore, type SessionStoreOptions } from './store.js';
export { default } from './plugin.js';
