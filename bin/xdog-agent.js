#!/usr/bin/env node
// `xdog-agent ARGS` is `xdog agent ARGS`.
import { start } from './start.js';

await start(import.meta.url, ['agent', ...process.argv.slice(2)]);
