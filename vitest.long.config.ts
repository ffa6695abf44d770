import { defineConfig } from 'vitest/config';

// `npm run test:long`: the sweeps too long for every `npm test` (crash points, exhaustive resume cuts). CI runs it
// after `npm test`.
export default defineConfig({
  test: {
    include: ['test/long/**/*.test.ts'],
    testTimeout: 600_000,
    maxWorkers: 2,
  },
});
