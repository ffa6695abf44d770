import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openRunStore } from '../../src/store/open-store.js';
import {
  DEFAULT_POSTGRES_SCHEMA,
  openPostgresRunStore,
  POSTGRES_SCHEMA_VERSION,
  redactPostgresUrl,
  type PostgresRunStore,
} from '../../src/store/postgres-run-store.js';
import type { EventRecord, RunStore } from '../../src/store/run-store.js';
import { describeRunStore } from './describe-run-store.js';
import { rejection } from './rejection.js';
import { startTestPostgres } from './postgres-server.js';

const started = await startTestPostgres();
const server = 'server' in started ? started.server : undefined;
if (server === undefined)
  console.log(`Postgres store tests skipped: ${'skipReason' in started ? started.skipReason : ''}`);
else console.log(`Postgres store tests use ${server.source}`);
afterAll(async () => {
  await server?.stop();
});

if (server === undefined) {
  describe.skip('RunStore conformance: postgres (no server)', () => {
    it('needs a Postgres server', () => undefined);
  });
} else {
  const pgServer = server;
  describeRunStore('postgres', {
    async fresh() {
      const schema = pgServer.freshSchema();
      return {
        open: (options) => openPostgresRunStore(pgServer.url, { schema, ...options }),
        dispose: () => pgServer.dropSchema(schema),
      };
    },
  });
}

describe('openPostgresRunStore without a server', () => {
  it('fails with STORE for a closed port at once, naming the URL without its password', async () => {
    const error = await rejection(openPostgresRunStore('postgres://weft:s3cret-pw@127.0.0.1:1/weft'));
    expect(error.code).toBe('STORE');
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('Cannot reach Postgres at postgres://weft@127.0.0.1:1/weft: ');
    expect(error.message).toContain('ECONNREFUSED');
    expect(error.message).not.toContain('s3cret-pw');
  });

  describe('a server that accepts connections and never answers', () => {
    let blackHole: Server;
    const sockets: Socket[] = [];
    beforeEach(async () => {
      blackHole = createServer((socket) => {
        sockets.push(socket);
        socket.on('error', () => undefined);
      });
      await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
    });
    afterEach(async () => {
      for (const socket of sockets.splice(0)) socket.destroy();
      await new Promise((resolve) => blackHole.close(resolve));
    });

    it('fails with STORE after the connect time-out instead of hanging', async () => {
      const address = blackHole.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      const started = Date.now();
      const error = await rejection(
        openPostgresRunStore(`postgresql://weft:hunter2@127.0.0.1:${port}/weft?password=hunter2`),
      );
      // The connect time-out applied (a lower bound: load can only lengthen it); a hang runs into the test's time-out.
      expect(Date.now() - started).toBeGreaterThanOrEqual(2500);
      expect(error.code).toBe('STORE');
      expect(error.message).toContain(
        `Cannot reach Postgres at postgresql://weft@127.0.0.1:${port}/weft?password=***: no answer within 3000 ms`,
      );
      expect(error.message).not.toContain('hunter2');
    });
  });

  it('says how to install pg when it is missing', async () => {
    const error = await rejection(
      openPostgresRunStore('postgres://127.0.0.1:1/weft', {
        importPg: () => Promise.reject(new Error("Cannot find package 'pg'")),
      }),
    );
    expect(error).toMatchObject({
      code: 'MISSING_DEPENDENCY',
      message: 'The Postgres store needs the pg package: npm install pg',
    });
  });

  it('rejects a malformed URL as bad input, without its password', async () => {
    const error = await rejection(openPostgresRunStore('postgres://ann:pw-77@[broken/weft'));
    expect(error.code).toBe('BAD_INPUT');
    expect(error.message).toContain('Invalid Postgres URL postgres://ann@[broken/weft');
    expect(error.message).not.toContain('pw-77');
  });

  it('rejects an empty schema name as bad input', async () => {
    expect((await rejection(openPostgresRunStore('postgres://127.0.0.1:1/weft', { schema: '' }))).code).toBe(
      'BAD_INPUT',
    );
  });

  it('removes passwords from URLs, percent-encoded or in the query', () => {
    expect(redactPostgresUrl('postgres://ann:p%40ss@db.example:5432/weft?sslmode=require')).toEqual({
      display: 'postgres://ann@db.example:5432/weft?sslmode=require',
      secrets: ['p%40ss', 'p@ss'],
    });
    expect(redactPostgresUrl('postgres://db/weft?user=ann&password=x1').display).toBe(
      'postgres://db/weft?user=ann&password=***',
    );
    expect(redactPostgresUrl('postgres://ann@db/weft')).toEqual({ display: 'postgres://ann@db/weft', secrets: [] });
  });
});

describe.skipIf(server === undefined)('Postgres store against a server', () => {
  const pgServer = server as NonNullable<typeof server>;
  let schema: string;
  const stores: RunStore[] = [];

  async function open(options: Parameters<typeof openPostgresRunStore>[1] = {}): Promise<PostgresRunStore> {
    const store = await openPostgresRunStore(pgServer.url, { schema, ...options });
    stores.push(store);
    return store;
  }

  beforeEach(() => {
    schema = pgServer.freshSchema();
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    await pgServer.dropSchema(schema);
  });

  it('creates its tables and schema version in the schema, once, even when several processes open it at once', async () => {
    const opened = await Promise.all(Array.from({ length: 4 }, () => open()));
    await opened[0]?.createRun({ runId: 'r1', task: 't', model: 'm', options: {} });
    expect((await opened[3]?.listRuns())?.map((run) => run.runId)).toEqual(['r1']);
    const tables = await pgServer.admin.query<{ tablename: string }>(
      'SELECT tablename FROM pg_tables WHERE schemaname = $1 ORDER BY tablename',
      [schema],
    );
    expect(tables.rows.map((row) => row.tablename)).toEqual([
      'batch_records',
      'batches',
      'blobs',
      'events',
      'plan_versions',
      'run_blobs',
      'runs',
      'schema_version',
      'session_events',
      'sessions',
      'team_scores',
      'team_sizes',
      'traces',
    ]);
    const version = await pgServer.admin.query(`SELECT version FROM "${schema}".schema_version`);
    expect(version.rows).toEqual([{ version: POSTGRES_SCHEMA_VERSION }]);
  });

  it('refuses a newer schema version and leaves the data untouched', async () => {
    const store = await open();
    await store.createRun({ runId: 'r1', task: 't', model: 'm', options: {} });
    await store.close();
    await pgServer.admin.query(`UPDATE "${schema}".schema_version SET version = 99`);
    const error = await rejection(open());
    expect(error.code).toBe('STORE');
    expect(error.message).toContain('schema version 99');
    expect(error.message).toContain(`up to ${POSTGRES_SCHEMA_VERSION}`);
    expect((await pgServer.admin.query(`SELECT run_id FROM "${schema}".runs`)).rows).toEqual([{ run_id: 'r1' }]);
  });

  it('refuses a schema holding tables Weft did not create, without adding any', async () => {
    await pgServer.admin.query(`CREATE SCHEMA "${schema}"; CREATE TABLE "${schema}".notes (body text)`);
    const error = await rejection(open());
    expect(error.code).toBe('STORE');
    expect(error.message).toContain('holds tables Weft did not create (notes)');
    const tables = await pgServer.admin.query('SELECT tablename FROM pg_tables WHERE schemaname = $1', [schema]);
    expect(tables.rows).toEqual([{ tablename: 'notes' }]);
  });

  it('fails with STORE for a wrong password or an unknown database, never showing the password', async () => {
    const url = new URL(pgServer.url);
    const wrongDatabase = new URL(pgServer.url);
    wrongDatabase.pathname = '/weft_no_such_database';
    const unknown = await rejection(openPostgresRunStore(wrongDatabase.href, { schema }));
    expect(unknown.code).toBe('STORE');
    expect(unknown.message).toContain('Cannot open the run store in Postgres at ');
    expect(unknown.message).toContain('weft_no_such_database');
    if (url.password !== '') {
      // (A password that is also the user or database name is starred out there too.)
      if (!redactPostgresUrl(pgServer.url).display.includes(url.password))
        expect(unknown.message).not.toContain(url.password);
      url.password = 'not-the-Password-42';
      const wrong = await rejection(openPostgresRunStore(url.href, { schema }));
      expect(wrong.code).toBe('STORE');
      expect(wrong.message).toMatch(/password authentication failed/);
      expect(wrong.message).not.toContain('not-the-Password-42');
    }
  });

  it('gives unique, gap-free seq numbers to two stores appending to one run at once, and never deadlocks on shared blobs', async () => {
    const [first, second] = [await open({ maxConnections: 4 }), await open({ maxConnections: 4 })];
    await first.createRun({ runId: 'r1', task: 't', model: 'm', options: {} });
    await first.createRun({ runId: 'r2', task: 't', model: 'm', options: {} });
    const shared = ['a', 'b', 'c'].map((seed) => `${seed}:`.padEnd(6000, seed));
    const writes: Promise<void>[] = [];
    for (let index = 0; index < 60; index += 1) {
      const writer = index % 2 === 0 ? first : second;
      // Blobs in a different order per batch, and the same blobs written to another run at the same time.
      const outputs = index % 3 === 0 ? shared : [...shared].reverse();
      const batch = outputs.map((output, position) => ({ type: `w${index}`, at: position, output }) as EventRecord);
      writes.push(writer.appendEvents(index % 4 === 3 ? 'r2' : 'r1', batch));
    }
    await Promise.all(writes);
    for (const runId of ['r1', 'r2']) {
      const events = await second.events(runId);
      expect(events.map((stored) => stored.seq)).toEqual(
        Array.from({ length: events.length }, (_, index) => index + 1),
      );
      for (let index = 0; index < events.length; index += 3) {
        const types = events.slice(index, index + 3).map((stored) => stored.event.type);
        expect(new Set(types).size).toBe(1);
        expect(events.slice(index, index + 3).map((stored) => stored.event.at)).toEqual([0, 1, 2]);
      }
    }
    expect((await first.events('r1')).length + (await first.events('r2')).length).toBe(180);
    expect(await first.stats()).toMatchObject({ events: 180, blobs: 3, blobBytes: 18000 });
  });

  it('round-trips a large string holding NUL, emoji and lone surrogates exactly', async () => {
    const store = await open();
    await store.createRun({ runId: 'r1', task: 't', model: 'm', options: { note: 'a\u0000b' } });
    const output = `start\u0000😀\ud800x\udc00"\\\n`.repeat(800);
    await store.appendEvents('r1', [{ type: 'task-end', at: 0.1 + 0.2, output, small: '\u0000\ud800' } as EventRecord]);
    const [stored] = await store.events('r1');
    expect(stored?.event).toEqual({ type: 'task-end', at: 0.1 + 0.2, output, small: '\u0000\ud800' });
    expect((await store.getRun('r1'))?.options).toEqual({ note: 'a\u0000b' });
  });

  it('survives the server dropping its idle connections', async () => {
    // Only this store's connections: other test files use the same database at the same time.
    const applicationName = `weft-test-${schema}`;
    const store = await open({ applicationName });
    await store.createRun({ runId: 'r1', task: 't', model: 'm', options: {} });
    const terminated = await pgServer.admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()',
      [applicationName],
    );
    expect(terminated.rowCount).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await store.appendEvents('r1', [{ type: 'x', at: 0 }]);
    expect((await store.events('r1')).map((stored) => stored.seq)).toEqual([1]);
  });

  it('is what openRunStore opens for a postgres:// store spec, in the weft schema by default', async (context) => {
    const existing = await pgServer.admin.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [
      DEFAULT_POSTGRES_SCHEMA,
    ]);
    // Never touch a `weft` schema this test did not create (WEFT_TEST_POSTGRES_URL may point at a shared database).
    if (existing.rowCount !== 0) context.skip(`the test database already has a "${DEFAULT_POSTGRES_SCHEMA}" schema`);
    schema = DEFAULT_POSTGRES_SCHEMA; // dropped again by afterEach
    const store = await openRunStore({ home: '/nonexistent/weft-home', store: pgServer.url });
    stores.push(store);
    await store.createRun({ runId: 'r1', task: 't', model: 'm', options: {} });
    expect((await pgServer.admin.query('SELECT run_id FROM weft.runs')).rows).toEqual([{ run_id: 'r1' }]);
  });
});
