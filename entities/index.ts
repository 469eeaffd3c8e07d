/** The claw store's entities, migrations and DataSource factory (imports core only). */
export * from './claw-entities.js';
export { CLAW_MIGRATIONS, ClawInitial1764547200000 } from './migrations/1764547200000-claw-initial.js';
export { clawStoreLocation, defaultClawStoreFile, openClawDataSource, type ClawStoreLocation } from './claw-data-source.js';
