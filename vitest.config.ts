import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The long sweeps run with `npm run test:long` (vitest.long.config.ts).
    exclude: ['test/long/**', '**/node_modules/**'],
    testTimeout: 30_000,
    // Two cores: more workers only contend.
    maxWorkers: 2,
  },
});
