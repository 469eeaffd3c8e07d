#!/usr/bin/env node
// `xdog-claw ARGS` is `xdog claw ARGS`.
import './output-errors.js';
import { execute } from '@oclif/core';
import './exit-on-signal.js';
import './oclif-settings.js';

await execute({ dir: import.meta.url, args: ['claw', ...process.argv.slice(2)] });
