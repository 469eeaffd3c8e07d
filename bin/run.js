#!/usr/bin/env node
import './output-errors.js';
import { execute } from '@oclif/core';
import './exit-on-signal.js';
import './oclif-settings.js';

await execute({ dir: import.meta.url });
