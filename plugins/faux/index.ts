/**
 * The `faux` provider plugin: a scripted model for tests, demos and bug
 * reproductions, selected as `faux/<name>`. The script comes from
 * XDOG_FAUX_SCRIPT (relative to the working directory) or the config key
 * `faux.script` (a loaded config file's paths are already absolute); with XDOG_FAUX_LOG=FILE every request is appended to FILE as
 * one JSON line. SDK users call `createFauxStreamFn()` directly.
 */
import { isAbsolute, resolve } from 'node:path';
import { Config, ContainerModule, ModelProviderContribution, WorkingDirectory, definePlugin, type ModelProvider, type XdogConfig } from '../../core/index.js';
import { createFauxStreamFn, type FauxOptions, type FauxStreamFn } from './stream.js';

export { FAUX_DEFAULT_MODEL, createFauxStreamFn, type FauxOptions, type FauxStreamFn } from './stream.js';
export {
  FauxModelSchema,
  FauxResponseSchema,
  FauxScriptSchema,
  parseFauxScript,
  type FauxModelOverrides,
  type FauxRequest,
  type FauxResponder,
  type FauxResponse,
  type FauxScript,
} from './script.js';

/** The faux provider: one scripted stream shared by every agent of a kernel. */
export class FauxProvider implements ModelProvider {
  readonly name = 'faux';
  readonly stream: FauxStreamFn;

  constructor(options: FauxOptions) {
    // A kernel's provider may serve a gateway for weeks: it keeps no requests in memory (XDOG_FAUX_LOG has them).
    this.stream = createFauxStreamFn({ ...options, record: false });
  }
}

/** Where the script comes from: XDOG_FAUX_SCRIPT wins over `faux.script`; relative paths resolve against `cwd`. */
export function fauxOptionsFrom(config: XdogConfig, cwd: string, env: NodeJS.ProcessEnv = process.env): FauxOptions {
  const script = env.XDOG_FAUX_SCRIPT || config.faux?.script;
  const log = env.XDOG_FAUX_LOG || undefined;
  return {
    ...(script ? { script: isAbsolute(script) ? script : resolve(cwd, script) } : {}),
    ...(log ? { log: isAbsolute(log) ? log : resolve(cwd, log) } : {}),
  };
}

export default definePlugin({
  name: 'faux',
  provides: { providers: ['faux'] },
  module: new ContainerModule(({ bind }) => {
    bind(ModelProviderContribution).toDynamicValue((context) => new FauxProvider(fauxOptionsFrom(context.get(Config), context.get(WorkingDirectory))));
  }),
});
