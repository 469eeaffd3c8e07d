// Imports each command module given on the command line, one after the other, in this process
// (under register.mjs, so every resolution is recorded with its parent).
import { pathToFileURL } from 'node:url';

for (const file of process.argv.slice(2)) await import(pathToFileURL(file).href);
