// Plugin commands are linked into oclif as compiled JavaScript: never try to transpile them
// with ts-node (oclif would otherwise warn on every run for a linked ESM plugin).
import { settings } from '@oclif/core';

settings.enableAutoTranspile = false;
