#!/usr/bin/env node
// `xdog-agent ARGS` is `xdog agent ARGS`.
import './output-errors.js';
import { execute } from '@oclif/core';
import './exit-on-signal.js';
import './oclif-settings.js';

await execute({ dir: import.meta.url, args: ['agent', ...process.argv.slice(2)] });
