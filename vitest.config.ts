import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The e2e suite builds the package once before any test file runs.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    // Most files wait on child processes (gateways, CLIs, servers), not the CPU: two at a time
    // halves the suite on the 2-core machines it runs on (the default would be one).
    maxWorkers: 2,
    // Test files share a worker's module cache instead of importing the runtime afresh each
    // (~130 s of imports over the suite); they restore what they change (env, timers).
    isolate: false,
    hookTimeout: 120_000,
  },
});
