/**
 * The test functions a store conformance suite registers its tests with: vitest's, passed in by the caller
 * (`import * as vitest from 'vitest'`), so that importing `weft/test` never loads vitest itself (it is an optional
 * peer dependency) and the suites register into the caller's own vitest.
 */
import type { afterEach, beforeEach, describe, expect, it } from 'vitest';

export interface StoreSuiteApi {
  readonly describe: typeof describe;
  readonly it: typeof it;
  readonly expect: typeof expect;
  readonly beforeEach: typeof beforeEach;
  readonly afterEach: typeof afterEach;
}
