// The one start of every xdog bin. Node 22.1+ keeps the compiled code of the
// modules it loads in a cache on disk (module.enableCompileCache(), the
// directory NODE_COMPILE_CACHE names, else one under the OS temp folder), so a
// later start skips most of the parsing and compiling; Node 20 has no such
// cache and starts as before. It must be on before oclif and the commands
// load, so they are imported dynamically after it.
import module from 'node:module';

module.enableCompileCache?.();

/** Runs oclif with these arguments (the bin's dir for the package.json and manifest). */
export async function start(dir, args) {
  await import('./output-errors.js');
  const { execute } = await import('@oclif/core');
  await import('./exit-on-signal.js');
  await import('./oclif-settings.js');
  await execute({ dir, ...(args ? { args } : {}) });
}
