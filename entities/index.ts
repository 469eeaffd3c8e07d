/** The claw store's entities, migrations and DataSource factory (imports core only). */
export * from './claw-entities.js';
export * from './claw-scheduler-entities.js';
export * from './claw-children-entities.js';
export * from './claw-channel-entities.js';
export * from './claw-skills-entities.js';
export * from './claw-runs-entities.js';
export { CLAW_MIGRATIONS, ClawInitial1764547200000 } from './migrations/1764547200000-claw-initial.js';
export { ClawScheduler1764720000000 } from './migrations/1764720000000-claw-scheduler.js';
export { ClawAccess1764806400000 } from './migrations/1764806400000-claw-access.js';
export { ClawMemories1764892800000, MEMORY_FTS_TABLE, MEMORY_TS_CONFIG } from './migrations/1764892800000-claw-memories.js';
export { migrateClawStore, openClawDataSource } from './claw-data-source.js';
export { clawStoreLocation, defaultClawStoreFile, describeClawStore, type ClawStoreConfig, type ClawStoreLocation } from './claw-store-location.js';
export { ClawChildren1764990000000 } from './migrations/1764990000000-claw-children.js';
export { ClawChannels1765017600000 } from './migrations/1765017600000-claw-channels.js';
export { ClawTurnSkills1765180800000 } from './migrations/1765180800000-claw-turn-skills.js';
export { ClawWorkers1765300000000 } from './migrations/1765300000000-claw-workers.js';
export { ClawRuns1765400000000 } from './migrations/1765400000000-claw-runs.js';
