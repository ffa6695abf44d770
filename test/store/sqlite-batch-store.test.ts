import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vitest from 'vitest';
import { openSqliteRunStore } from '../../src/store/sqlite-run-store.js';
import { describeBatchStore } from '../../src/testing/describe-batch-store.js';

describeBatchStore(
  'sqlite',
  {
    async fresh() {
      const dir = await mkdtemp(join(tmpdir(), 'weft-batch-store-'));
      const path = join(dir, 'weft.db');
      return {
        open: async () => openSqliteRunStore(path),
        dispose: () => rm(dir, { recursive: true, force: true }),
      };
    },
  },
  vitest,
);
