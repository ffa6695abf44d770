#!/usr/bin/env node
// Loads the built CLI. A clone that was not installed or built gets a short instruction instead of Node's stack
// trace for a missing module.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

let main;
try {
  ({ main } = await import('../dist/cli/main.js'));
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
  const root = fileURLToPath(new URL('..', import.meta.url));
  const unbuilt = !existsSync(new URL('../dist/cli/main.js', import.meta.url));
  const what = unbuilt
    ? 'Weft is not built (no dist/ folder)'
    : `a dependency is not installed (${String(error.message).split('\n')[0]})`;
  process.stderr.write(
    `weft: ${what}.\nRun \`npm ci\` in ${root} (it installs and builds), or \`npm run build\` after editing the sources, then try again.\n`,
  );
  process.exit(2);
}

process.exitCode = await main(process.argv.slice(2));
