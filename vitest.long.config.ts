import { defineConfig } from 'vitest/config';

// `npm run test:long`: the sweeps too long for every `npm test` (crash points, exhaustive resume cuts, signals to
// child processes, the slowest end-to-end CLI runs), so that `npm test` stays under 3 minutes. CI runs it after
// `npm test`.
export default defineConfig({
  test: {
    include: ['test/long/**/*.test.ts', 'test/browser/**/*.test.ts'],
    // What `import 'weft'` registers: the sim model's responders of the engines (test/sim-responders.setup.ts).
    setupFiles: ['test/sim-responders.setup.ts'],
    testTimeout: 600_000,
    maxWorkers: 2,
  },
});
