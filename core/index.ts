/** The public API of xdog: what plugins and hosts import from 'xdog'. */
import 'reflect-metadata';

export * from './errors.js';
export * from './limits.js';
export * from './tokens.js';
export * from './plugin.js';
export * from './kernel.js';
export * from './discovery.js';
export * from './config.js';
export * from './paths.js';
export * from './agent/messages.js';
export * from './agent/tool-types.js';
export * from './agent/index.js';
export * from './model/types.js';
export * from './model/catalog.js';
export * from './model/registry.js';
export * from './credentials.js';
export { ContainerModule, inject, injectable, named, optional } from 'inversify';
export * from '../hooks/index.js';
export * from './plugin-installer.js';
export * from './bootstrap.js';
export * from './skills/skill-file.js';
export * from './skills/skill-repo.js';
export * from './skills/skill-tool.js';
export * from './skills/skill-placement.js';
export * from './capabilities/types.js';
export * from './capabilities/capability-set.js';
export * from './capabilities/assembly.js';
