import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

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
    include: ['test/**/*.test.ts'],
    // What `import 'weft'` registers: the sim model's responders of the engines (test/sim-responders.setup.ts).
    setupFiles: ['test/sim-responders.setup.ts'],
    // The long sweeps run with `npm run test:long` (vitest.long.config.ts).
    exclude: ['test/long/**', 'test/browser/**', '**/node_modules/**'],
    testTimeout: 30_000,
    // Two cores: more workers only contend.
    maxWorkers: 2,
    // Test files share a worker's module graph instead of importing Weft anew each (import time fell from 52 s to
    // 21 s of the suite, its wall time from 3 min 10 s to 2 min). It asks of tests what they already do: restore
    // real timers and the environment, unregister what they register, and keep state in their own objects.
    isolate: false,
  },
});
