/**
 * The yaml package, loaded on first use rather than when Weft is imported (most commands read no YAML). Sync,
 * for the sync parsers that use it; `require` and `import` give the same module here (yaml is CommonJS for Node).
 */
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

let loaded: typeof Yaml | undefined;

export function yaml(): typeof Yaml {
  loaded ??= createRequire(import.meta.url)('yaml') as typeof Yaml;
  return loaded;
}
