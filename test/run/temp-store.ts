/** A fresh SQLite run store in a temporary home per call, closed after each test of the file that asks for it. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { openRunStore } from '../../src/store/open-store.js';
import type { RunStore } from '../../src/store/run-store.js';

export function tempStores(prefix: string): () => Promise<{ home: string; store: RunStore }> {
  const stores: RunStore[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
  });
  return async () => {
    const home = mkdtempSync(join(tmpdir(), `weft-${prefix}-`));
    const store = await openRunStore({ home });
    stores.push(store);
    return { home, store };
  };
}
