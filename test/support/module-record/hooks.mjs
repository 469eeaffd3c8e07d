// Module hooks that record every resolution: one line per import, "parent<TAB>resolved URL",
// appended to the file the register step was given (the hooks run off the main thread, so
// they write the file themselves). Used by test/e2e/cli-imports.test.ts.
import { appendFileSync } from 'node:fs';

let file;

export function initialize(data) {
  file = data.file;
}

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(file, `${context.parentURL ?? ''}\t${resolved.url}\n`);
  return resolved;
}
