/**
 * Opening Postgres schemas written by earlier versions of Weft. Version 1 is spelled out here as it shipped, so a
 * change to the migrations cannot silently change what "the previous schema" means.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openPostgresRunStore, POSTGRES_SCHEMA_VERSION, type PostgresRunStore } from '../../src/store/postgres-run-store.js';
import { rejection } from './rejection.js';
import { startTestPostgres } from './postgres-server.js';

const started = await startTestPostgres();
const server = 'server' in started ? started.server : undefined;
if (server === undefined) console.log(`Postgres migration tests skipped: ${'skipReason' in started ? started.skipReason : ''}`);
afterAll(async () => {
  await server?.stop();
});

/** Schema version 1 (issue 3), verbatim; `s` is the quoted schema. */
const schemaV1 = (s: string) => `
  CREATE TABLE ${s}.schema_version (single boolean PRIMARY KEY DEFAULT true CHECK (single), version integer NOT NULL);
  INSERT INTO ${s}.schema_version (version) VALUES (1);
  CREATE TABLE ${s}.runs (
    run_id text PRIMARY KEY, position bigint GENERATED ALWAYS AS IDENTITY, task text NOT NULL, model text NOT NULL,
    options text NOT NULL, status text NOT NULL, created_at text NOT NULL, updated_at text NOT NULL,
    last_seq integer NOT NULL DEFAULT 0, owner_pid integer, owner_host text
  );
  CREATE INDEX runs_by_created_at ON ${s}.runs (created_at, position);
  CREATE TABLE ${s}.events (
    run_id text NOT NULL REFERENCES ${s}.runs (run_id) ON DELETE CASCADE, seq integer NOT NULL, type text NOT NULL,
    at double precision NOT NULL, data text NOT NULL, blob_refs text, PRIMARY KEY (run_id, seq)
  );
  CREATE TABLE ${s}.plan_versions (
    run_id text NOT NULL REFERENCES ${s}.runs (run_id) ON DELETE CASCADE, version integer NOT NULL, cause text NOT NULL,
    created_at text NOT NULL, data text NOT NULL, blob_refs text, PRIMARY KEY (run_id, version)
  );
  CREATE TABLE ${s}.blobs (sha256 text PRIMARY KEY, bytes bigint NOT NULL, content_json text NOT NULL);
  CREATE TABLE ${s}.run_blobs (
    run_id text NOT NULL REFERENCES ${s}.runs (run_id) ON DELETE CASCADE, sha256 text NOT NULL, PRIMARY KEY (run_id, sha256)
  );
  CREATE INDEX run_blobs_by_sha256 ON ${s}.run_blobs (sha256);
  INSERT INTO ${s}.runs (run_id, task, model, options, status, created_at, updated_at, last_seq, owner_pid, owner_host)
    VALUES ('v1-run', 'old task', 'sim:seed=1', '{}', 'completed', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', 1, 7, 'h');
  INSERT INTO ${s}.events (run_id, seq, type, at, data) VALUES ('v1-run', 1, 'run-start', 0, '{"type":"run-start","at":0}');
`;

describe.skipIf(server === undefined)('Postgres schema migrations', () => {
  const pgServer = server as NonNullable<typeof server>;
  let schema: string;
  const stores: PostgresRunStore[] = [];
  const quoted = () => `"${schema}"`;

  beforeEach(async () => {
    schema = pgServer.freshSchema();
    await pgServer.admin.query(`CREATE SCHEMA ${quoted()}`);
    await pgServer.admin.query(schemaV1(quoted()));
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    await pgServer.dropSchema(schema);
  });

  it('upgrades version 1 to 2: keeps the runs and adds team scores', async () => {
    const store = await openPostgresRunStore(pgServer.url, { schema });
    stores.push(store);
    expect((await store.listRuns()).map((run) => [run.runId, run.owner])).toEqual([['v1-run', { pid: 7, host: 'h' }]]);
    expect((await store.events('v1-run')).map((stored) => stored.event)).toEqual([{ type: 'run-start', at: 0 }]);
    await store.saveTeamScores({ team: 'panel', taskType: 'mmlu', scores: [{ agent: 'a', importance: 0.75, queries: 3 }] });
    expect((await store.teamScores('panel', 'mmlu')).map((score) => [score.agent, score.queries, score.mean])).toEqual([['a', 3, 0.25]]);
    const version = await pgServer.admin.query(`SELECT version FROM ${quoted()}.schema_version`);
    expect(version.rows).toEqual([{ version: POSTGRES_SCHEMA_VERSION }]);
    expect(POSTGRES_SCHEMA_VERSION).toBe(2);
  });

  it('rolls the whole upgrade back when a step fails, leaving version 1 as it was', async () => {
    await pgServer.admin.query(`CREATE TABLE ${quoted()}.team_scores (note text)`);
    const error = await rejection(openPostgresRunStore(pgServer.url, { schema }));
    expect(error.code).toBe('STORE');
    expect(error.message).toContain('team_scores');
    const version = await pgServer.admin.query(`SELECT version FROM ${quoted()}.schema_version`);
    expect(version.rows).toEqual([{ version: 1 }]);
    const columns = await pgServer.admin.query(
      "SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'team_scores'",
      [schema],
    );
    expect(columns.rows).toEqual([{ column_name: 'note' }]);
    expect((await pgServer.admin.query(`SELECT run_id FROM ${quoted()}.runs`)).rows).toEqual([{ run_id: 'v1-run' }]);
  });
});
