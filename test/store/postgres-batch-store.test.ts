import * as vitest from 'vitest';
import { openPostgresRunStore } from '../../src/store/postgres-run-store.js';
import { describeBatchStore } from '../../src/testing/describe-batch-store.js';
import { startTestPostgres } from './postgres-server.js';

const { afterAll, describe, it } = vitest;

const started = await startTestPostgres();
const server = 'server' in started ? started.server : undefined;
if (server === undefined)
  console.log(`Postgres batch store tests skipped: ${'skipReason' in started ? started.skipReason : ''}`);
afterAll(async () => {
  await server?.stop();
});

if (server === undefined) {
  describe.skip('BatchStore conformance: postgres (no server)', () => {
    it('needs a Postgres server', () => undefined);
  });
} else {
  const pgServer = server;
  describeBatchStore(
    'postgres',
    {
      async fresh() {
        const schema = pgServer.freshSchema();
        return {
          open: () => openPostgresRunStore(pgServer.url, { schema }),
          dispose: () => pgServer.dropSchema(schema),
        };
      },
    },
    vitest,
  );
}
