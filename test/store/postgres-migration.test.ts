/**
 * Opening Postgres schemas written by earlier versions of Weft. Versions 1 to 3 are spelled out here as they
 * shipped, so a change to the migrations cannot silently change what "the previous schema" means.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  openPostgresRunStore,
  POSTGRES_SCHEMA_VERSION,
  type PostgresRunStore,
} from '../../src/store/postgres-run-store.js';
import { rejection } from './rejection.js';
import { startTestPostgres } from './postgres-server.js';

const started = await startTestPostgres();
const server = 'server' in started ? started.server : undefined;
if (server === undefined)
  console.log(`Postgres migration tests skipped: ${'skipReason' in started ? started.skipReason : ''}`);
afterAll(async () => {
  await server?.stop();
});

/** Schema version 1, verbatim; `s` is the quoted schema. */
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

/** What schema version 2 (team scores) added to version 1, verbatim, with some scores; `s` is the quoted schema. */
const schemaV2Additions = (s: string) => `
  UPDATE ${s}.schema_version SET version = 2;
  CREATE TABLE ${s}.team_scores (
    team       text NOT NULL,
    task_type  text NOT NULL,
    agent      text NOT NULL,
    importance double precision NOT NULL,
    queries    bigint NOT NULL,
    updated_at text NOT NULL,
    PRIMARY KEY (team, task_type, agent)
  );
  INSERT INTO ${s}.team_scores VALUES
    ('panel', 'mmlu', 'analyst', 1.5, 3, '2026-03-01T00:00:00.000Z'),
    ('panel', 'mmlu', 'solver', 0.75, 3, '2026-03-01T00:00:00.000Z'),
    ('panel', 'code', 'coder', 2, 4, '2026-03-01T00:00:00.000Z');
`;

/** What schema version 3 (team sizes) added to version 2, verbatim, with one size; `s` is the quoted schema. */
const schemaV3Additions = (s: string) => `
  UPDATE ${s}.schema_version SET version = 3;
  CREATE TABLE ${s}.team_sizes (
    team       text NOT NULL,
    task_type  text NOT NULL,
    k          bigint NOT NULL,
    updated_at text NOT NULL,
    PRIMARY KEY (team, task_type)
  );
  INSERT INTO ${s}.team_sizes VALUES ('panel', 'mmlu', 2, '2026-04-01T00:00:00.000Z');
`;

/** What schema version 4 (sessions) added to version 3, verbatim, with one session; `s` is the quoted schema. */
const schemaV4Additions = (s: string) => `
  UPDATE ${s}.schema_version SET version = 4;
  CREATE TABLE ${s}.sessions (
    session_id text PRIMARY KEY,
    position   bigint GENERATED ALWAYS AS IDENTITY,
    procedure  text NOT NULL,
    pdl_path   text NOT NULL,
    model      text NOT NULL,
    options    text NOT NULL,
    status     text NOT NULL,
    turns      integer NOT NULL DEFAULT 0,
    created_at text NOT NULL,
    updated_at text NOT NULL,
    last_seq   integer NOT NULL DEFAULT 0,
    owner_pid  integer,
    owner_host text
  );
  CREATE INDEX sessions_by_created_at ON ${s}.sessions (created_at, position);
  CREATE TABLE ${s}.session_events (
    session_id text NOT NULL REFERENCES ${s}.sessions (session_id) ON DELETE CASCADE,
    seq        integer NOT NULL,
    type       text NOT NULL,
    at         double precision NOT NULL,
    data       text NOT NULL,
    PRIMARY KEY (session_id, seq)
  );
  INSERT INTO ${s}.sessions (session_id, procedure, pdl_path, model, options, status, created_at, updated_at, last_seq)
    VALUES ('s-old', 'P', '', 'sim:', '{}', 'open', '2026-05-01T00:00:00.000Z', '2026-05-01T00:00:00.000Z', 1);
  INSERT INTO ${s}.session_events VALUES ('s-old', 1, 'session-start', 0, '{"type":"session-start","at":0}');
`;

describe.skipIf(server === undefined)('Postgres schema migrations', () => {
  const pgServer = server as NonNullable<typeof server>;
  let schema: string;
  const stores: PostgresRunStore[] = [];
  const quoted = () => `"${schema}"`;

  /** A table in the way makes the last step fail: the open fails and the schema stays at `version`, table untouched. */
  async function expectBlockedUpgradeRolledBack(table: string, version: number): Promise<void> {
    await pgServer.admin.query(`CREATE TABLE ${quoted()}.${table} (note text)`);
    const error = await rejection(openPostgresRunStore(pgServer.url, { schema }));
    expect(error.code).toBe('STORE');
    expect(error.message).toContain(table);
    expect((await pgServer.admin.query(`SELECT version FROM ${quoted()}.schema_version`)).rows).toEqual([{ version }]);
    const columns = await pgServer.admin.query(
      'SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2',
      [schema, table],
    );
    expect(columns.rows).toEqual([{ column_name: 'note' }]);
  }

  beforeEach(async () => {
    schema = pgServer.freshSchema();
    await pgServer.admin.query(`CREATE SCHEMA ${quoted()}`);
    await pgServer.admin.query(schemaV1(quoted()));
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    await pgServer.dropSchema(schema);
  });

  it('upgrades version 1 to the current one: keeps the runs and adds team scores and sizes', async () => {
    const store = await openPostgresRunStore(pgServer.url, { schema });
    stores.push(store);
    expect((await store.listRuns()).map((run) => [run.runId, run.owner])).toEqual([['v1-run', { pid: 7, host: 'h' }]]);
    expect((await store.events('v1-run')).map((stored) => stored.event)).toEqual([{ type: 'run-start', at: 0 }]);
    await store.saveTeamScores({
      team: 'panel',
      taskType: 'mmlu',
      scores: [{ agent: 'a', importance: 0.75, queries: 3 }],
    });
    expect((await store.teamScores('panel', 'mmlu')).map((score) => [score.agent, score.queries, score.mean])).toEqual([
      ['a', 3, 0.25],
    ]);
    expect(await store.teamSize('panel', 'mmlu')).toBeUndefined();
    await store.saveTeamScores({ team: 'panel', taskType: 'mmlu', scores: [], k: 1 });
    expect(await store.teamSize('panel', 'mmlu')).toBe(1);
    const version = await pgServer.admin.query(`SELECT version FROM ${quoted()}.schema_version`);
    expect(version.rows).toEqual([{ version: POSTGRES_SCHEMA_VERSION }]);
    expect(POSTGRES_SCHEMA_VERSION).toBe(6);
    expect(await store.listSessions()).toEqual([]);
  });

  it('rolls the whole upgrade back when a step fails, leaving version 1 as it was', async () => {
    await expectBlockedUpgradeRolledBack('team_scores', 1);
    expect((await pgServer.admin.query(`SELECT run_id FROM ${quoted()}.runs`)).rows).toEqual([{ run_id: 'v1-run' }]);
  });

  describe('version 2 to 3 (team sizes)', () => {
    beforeEach(async () => {
      await pgServer.admin.query(schemaV2Additions(quoted()));
    });

    it('keeps the runs and every stored score, and adds an empty team_sizes table', async () => {
      const store = await openPostgresRunStore(pgServer.url, { schema });
      stores.push(store);
      expect((await store.listRuns()).map((run) => [run.runId, run.owner])).toEqual([
        ['v1-run', { pid: 7, host: 'h' }],
      ]);
      expect(
        (await store.teamScores('panel', 'mmlu')).map((score) => [score.agent, score.importance, score.queries]),
      ).toEqual([
        ['analyst', 1.5, 3],
        ['solver', 0.75, 3],
      ]);
      expect(
        (await store.teamScores('panel', 'code')).map((score) => [score.agent, score.queries, score.mean]),
      ).toEqual([['coder', 4, 0.5]]);
      // Version 2 recorded no size: selection falls back to 4 until an optimisation records one.
      expect(await store.teamSize('panel', 'mmlu')).toBeUndefined();
      expect((await pgServer.admin.query(`SELECT * FROM ${quoted()}.team_sizes`)).rows).toEqual([]);
      await store.saveTeamScores({
        team: 'panel',
        taskType: 'mmlu',
        scores: [{ agent: 'solver', importance: 0.25, queries: 1 }],
        k: 2,
      });
      expect(await store.teamSize('panel', 'mmlu')).toBe(2);
      expect(
        (await store.teamScores('panel', 'mmlu')).map((score) => [score.agent, score.importance, score.queries]),
      ).toEqual([
        ['analyst', 1.5, 3],
        ['solver', 1, 4],
      ]);
      const version = await pgServer.admin.query(`SELECT version FROM ${quoted()}.schema_version`);
      expect(version.rows).toEqual([{ version: POSTGRES_SCHEMA_VERSION }]);
    });

    it('rolls the whole upgrade back when a step fails, leaving version 2 as it was', async () => {
      await expectBlockedUpgradeRolledBack('team_sizes', 2);
      expect((await pgServer.admin.query(`SELECT count(*)::int AS n FROM ${quoted()}.team_scores`)).rows).toEqual([
        { n: 3 },
      ]);
    });
  });

  describe('version 3 to 4 (sessions)', () => {
    beforeEach(async () => {
      await pgServer.admin.query(schemaV2Additions(quoted()));
      await pgServer.admin.query(schemaV3Additions(quoted()));
    });

    it('keeps the runs, scores and sizes, and adds empty sessions and session_events tables that work', async () => {
      const store = await openPostgresRunStore(pgServer.url, { schema });
      stores.push(store);
      expect((await store.listRuns()).map((run) => run.runId)).toEqual(['v1-run']);
      expect((await store.teamScores('panel', 'code')).map((score) => score.agent)).toEqual(['coder']);
      expect(await store.teamSize('panel', 'mmlu')).toBe(2);
      expect(await store.listSessions()).toEqual([]);
      for (const table of ['sessions', 'session_events']) {
        expect((await pgServer.admin.query(`SELECT count(*)::int AS n FROM ${quoted()}.${table}`)).rows).toEqual([
          { n: 0 },
        ]);
      }
      await store.createSession({ sessionId: 's-1', procedure: 'P', pdlPath: '', model: 'sim:', options: {} });
      await store.appendSessionEvents('s-1', [{ type: 'session-start', at: 0 }]);
      expect((await store.sessionEvents('s-1')).map((stored) => stored.seq)).toEqual([1]);
      expect((await pgServer.admin.query(`SELECT version FROM ${quoted()}.schema_version`)).rows).toEqual([
        { version: POSTGRES_SCHEMA_VERSION },
      ]);
    });

    it('rolls the whole upgrade back when a step fails, leaving version 3 as it was', async () => {
      await expectBlockedUpgradeRolledBack('sessions', 3);
      expect((await pgServer.admin.query(`SELECT k::int AS k FROM ${quoted()}.team_sizes`)).rows).toEqual([{ k: 2 }]);
    });
  });

  describe('version 4 to 5 (traces) and 5 to 6 (batches)', () => {
    beforeEach(async () => {
      await pgServer.admin.query(schemaV2Additions(quoted()));
      await pgServer.admin.query(schemaV3Additions(quoted()));
      await pgServer.admin.query(schemaV4Additions(quoted()));
    });

    it('keeps the runs, sizes and sessions, and adds empty traces and batches tables that work', async () => {
      const store = await openPostgresRunStore(pgServer.url, { schema });
      stores.push(store);
      expect((await store.listRuns()).map((run) => run.runId)).toEqual(['v1-run']);
      expect(await store.teamSize('panel', 'mmlu')).toBe(2);
      expect((await store.sessionEvents('s-old')).map((stored) => stored.event.type)).toEqual(['session-start']);
      expect(await store.listTraces()).toEqual([]);
      const trace = {
        traceId: 't-1',
        task: 'T',
        mode: 'run' as const,
        model: 'sim:',
        input: {},
        calls: [],
        success: true,
        usage: { calls: 0, inputTokens: 0, outputTokens: 0 },
      };
      await store.saveTrace(trace);
      expect(await store.listTraces({ success: true })).toMatchObject([trace]);
      expect(await store.listBatches()).toEqual([]);
      await store.createBatch({ batchId: 'b-1', manifest: {} });
      await store.appendBatchRecords('b-1', [{ type: 'case-start', id: 1, attempt: 1 }]);
      expect((await store.batchRecords('b-1')).map((stored) => stored.seq)).toEqual([1]);
      expect((await pgServer.admin.query(`SELECT version FROM ${quoted()}.schema_version`)).rows).toEqual([
        { version: POSTGRES_SCHEMA_VERSION },
      ]);
    });

    it('rolls the whole upgrade back when a step fails, leaving version 4 as it was', async () => {
      await expectBlockedUpgradeRolledBack('traces', 4);
      expect((await pgServer.admin.query(`SELECT session_id FROM ${quoted()}.sessions`)).rows).toEqual([
        { session_id: 's-old' },
      ]);
    });

    it('refuses version 7 (a newer Weft) and leaves the schema as it was', async () => {
      const store = await openPostgresRunStore(pgServer.url, { schema });
      await store.close();
      await pgServer.admin.query(`UPDATE ${quoted()}.schema_version SET version = 7`);
      const error = await rejection(openPostgresRunStore(pgServer.url, { schema }));
      expect(error.code).toBe('STORE');
      expect(error.message).toContain('schema version 7, but this Weft understands versions up to 6');
      expect((await pgServer.admin.query(`SELECT version FROM ${quoted()}.schema_version`)).rows).toEqual([
        { version: 7 },
      ]);
    });
  });
});
