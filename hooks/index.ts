export * from './agent.js';
export * from './kernel.js';
export * from './tap.js';
export * from './gateway.js';
export * from './stages.js';
