#!/usr/bin/env node
// `xdog-claw ARGS` is `xdog claw ARGS`.
import { start } from './start.js';

await start(import.meta.url, ['claw', ...process.argv.slice(2)]);
