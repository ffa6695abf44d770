import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// `npm run test:long`: the sweeps too long for every `npm test` (crash points, exhaustive resume cuts, signals to
// child processes, the slowest end-to-end CLI runs), so that `npm test` stays under 3 minutes. CI runs it after
// `npm test`.
// The package's entries resolve to their sources, so tests and docs' examples can import 'weft', 'weft/core',
// 'weft/internal' and 'weft/test' as a user does (tsconfig.json's paths say the same to the type checker).
const entry = (file: string) => fileURLToPath(new URL(`./src/${file}.ts`, import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^weft$/, replacement: entry('index') },
      { find: /^weft\/(core|internal|test)$/, replacement: entry('$1') },
    ],
  },
  test: {
    include: ['test/long/**/*.test.ts', 'test/browser/**/*.test.ts'],
    // What `import 'weft'` registers: the sim model's responders of the engines (test/sim-responders.setup.ts).
    setupFiles: ['test/sim-responders.setup.ts'],
    testTimeout: 600_000,
    maxWorkers: 2,
  },
});
