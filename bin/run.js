#!/usr/bin/env node
import { start } from './start.js';

await start(import.meta.url);
