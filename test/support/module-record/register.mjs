// `node --import ./register.mjs ...` with XDOG_MODULE_RECORD=FILE records what the process imports (hooks.mjs).
import { register } from 'node:module';

if (process.env.XDOG_MODULE_RECORD) register('./hooks.mjs', import.meta.url, { data: { file: process.env.XDOG_MODULE_RECORD } });
