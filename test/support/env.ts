/**
 * Sets environment variables for the rest of a test file and puts the old
 * values back after it: test files share a worker process, so a variable left
 * behind (XDOG_CONFIG, XDG_CONFIG_HOME) would change what later files' CLIs read.
 */
import { afterAll } from 'vitest';

export function useEnv(values: NodeJS.ProcessEnv): void {
  const previous = Object.fromEntries(Object.keys(values).map((key) => [key, process.env[key]]));
  Object.assign(process.env, values);
  afterAll(() => {
    for (const [key, value] of Object.entries(previous)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });
}
