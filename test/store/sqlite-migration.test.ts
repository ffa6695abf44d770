/**
 * Opening databases written by earlier versions of Weft. Each old schema is spelled out here as it shipped, so a
 * change to the migrations cannot silently change what "the previous schema" means.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deflate, encodeRefs } from '../../src/store/json-blobs.js';
import type { EventRecord } from '../../src/store/run-store.js';
import { openSqliteRunStore, SQLITE_APPLICATION_ID, SQLITE_SCHEMA_VERSION } from '../../src/store/sqlite-run-store.js';

/** Schema version 1, verbatim. */
const SCHEMA_V1 = `
  CREATE TABLE runs (
    run_id     TEXT PRIMARY KEY NOT NULL,
    task       TEXT NOT NULL,
    model      TEXT NOT NULL,
    options    TEXT NOT NULL,
    status     TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    last_seq   INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX runs_by_created_at ON runs (created_at);
  CREATE TABLE events (
    run_id    TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    seq       INTEGER NOT NULL,
    type      TEXT NOT NULL,
    at        REAL NOT NULL,
    data      TEXT NOT NULL,
    blob_refs TEXT,
    PRIMARY KEY (run_id, seq)
  );
  CREATE TABLE plan_versions (
    run_id     TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    version    INTEGER NOT NULL,
    cause      TEXT NOT NULL,
    created_at TEXT NOT NULL,
    data       TEXT NOT NULL,
    blob_refs  TEXT,
    PRIMARY KEY (run_id, version)
  );
  CREATE TABLE blobs (
    sha256  TEXT PRIMARY KEY NOT NULL,
    bytes   INTEGER NOT NULL,
    content TEXT NOT NULL
  );
`;

/** What schema version 2 added to version 1, verbatim. */
const SCHEMA_V2_ADDITIONS = `
  ALTER TABLE runs ADD COLUMN owner_pid INTEGER;
  ALTER TABLE runs ADD COLUMN owner_host TEXT;
  CREATE TABLE run_blobs (
    run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    sha256 TEXT NOT NULL,
    PRIMARY KEY (run_id, sha256)
  ) WITHOUT ROWID;
  CREATE INDEX run_blobs_by_sha256 ON run_blobs (sha256);
`;

/** What schema version 3 (team scores) added to version 2, verbatim. */
const SCHEMA_V3_ADDITIONS = `
  CREATE TABLE team_scores (
    team       TEXT NOT NULL,
    task_type  TEXT NOT NULL,
    agent      TEXT NOT NULL,
    importance REAL NOT NULL,
    queries    INTEGER NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (team, task_type, agent)
  ) WITHOUT ROWID;
`;

/** What schema version 4 (team sizes) added to version 3, verbatim. */
const SCHEMA_V4_ADDITIONS = `
  CREATE TABLE team_sizes (
    team       TEXT NOT NULL,
    task_type  TEXT NOT NULL,
    k          INTEGER NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (team, task_type)
  ) WITHOUT ROWID;
`;

/** Tables a later version added, so each step's test can tell its own tables from later ones. */
const ADDED_AFTER_4 = ['session_events', 'sessions', 'traces', 'batches', 'batch_records'];

const shared = `<main>${'shared output '.repeat(600)}</main>`;
const planOnly = `objective ${'x'.repeat(5000)}`;

/** Writes a version-1 database the way Weft 1 did: two finished runs sharing an output, one with a large plan. */
function writeVersion1(path: string): void {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec(SCHEMA_V1);
  db.pragma(`application_id = ${SQLITE_APPLICATION_ID}`);
  db.pragma('user_version = 1');
  const insertRun = db.prepare('INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  const insertEvent = db.prepare('INSERT INTO events VALUES (?, ?, ?, ?, ?, ?)');
  const insertPlan = db.prepare('INSERT INTO plan_versions VALUES (?, ?, ?, ?, ?, ?)');
  const insertBlob = db.prepare('INSERT OR IGNORE INTO blobs VALUES (?, ?, ?)');
  const save = (blobs: ReadonlyMap<string, string>) => {
    for (const [sha256, content] of blobs) insertBlob.run(sha256, Buffer.byteLength(content), content);
  };
  for (const [runId, created] of [
    ['old-1', '2026-01-01T00:00:00.000Z'],
    ['old-2', '2026-01-02T00:00:00.000Z'],
  ] as const) {
    const events: EventRecord[] = [
      { type: 'run-start', at: 0 },
      { type: 'task-end', at: 5, output: shared } as EventRecord,
      { type: 'run-end', at: 6 },
    ];
    insertRun.run(
      runId,
      `task ${runId}`,
      'sim:seed=1',
      '{"strategy":"on-failure"}',
      'completed',
      created,
      created,
      events.length,
    );
    events.forEach((event, index) => {
      const deflated = deflate(event, runId);
      save(deflated.blobs);
      insertEvent.run(runId, index + 1, event.type, event.at, deflated.json, encodeRefs(deflated.refs));
    });
  }
  const plan = deflate(
    { workflow: { task: 't', subtasks: [{ id: 'a', objective: planOnly, agent: 'w', dependsOn: [] }] } },
    'plan',
  );
  save(plan.blobs);
  insertPlan.run('old-1', 1, 'initial plan', '2026-01-01T00:00:00.000Z', plan.json, encodeRefs(plan.refs));
  db.close();
}

/**
 * Writes a version-2 database the way Weft 2 did: a finished run with an owner and a large output, a running one
 * that shares the output, and a plan version.
 */
function writeVersion2(path: string): void {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec(SCHEMA_V1);
  db.exec(SCHEMA_V2_ADDITIONS);
  db.pragma(`application_id = ${SQLITE_APPLICATION_ID}`);
  db.pragma('user_version = 2');
  const insertRun = db.prepare('INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  const insertEvent = db.prepare('INSERT INTO events VALUES (?, ?, ?, ?, ?, ?)');
  const insertBlob = db.prepare('INSERT OR IGNORE INTO blobs VALUES (?, ?, ?)');
  const insertUse = db.prepare('INSERT OR IGNORE INTO run_blobs VALUES (?, ?)');
  for (const [runId, status, pid] of [
    ['v2-done', 'completed', 11],
    ['v2-live', 'running', 12],
  ] as const) {
    const events: EventRecord[] = [
      { type: 'run-start', at: 0 },
      { type: 'task-end', at: 4, output: shared } as EventRecord,
    ];
    insertRun.run(
      runId,
      `task ${runId}`,
      'sim:seed=2',
      '{}',
      status,
      '2026-02-01T00:00:00.000Z',
      '2026-02-01T00:00:00.000Z',
      events.length,
      pid,
      'host-2',
    );
    events.forEach((event, index) => {
      const deflated = deflate(event, runId);
      for (const [sha256, content] of deflated.blobs) {
        insertBlob.run(sha256, Buffer.byteLength(content), content);
        insertUse.run(runId, sha256);
      }
      insertEvent.run(runId, index + 1, event.type, event.at, deflated.json, encodeRefs(deflated.refs));
    });
  }
  const plan = deflate(
    { workflow: { task: 't', subtasks: [{ id: 'a', objective: 'small', agent: 'w', dependsOn: [] }] } },
    'plan',
  );
  db.prepare('INSERT INTO plan_versions VALUES (?, ?, ?, ?, ?, ?)').run(
    'v2-done',
    1,
    'given plan',
    '2026-02-01T00:00:00.000Z',
    plan.json,
    encodeRefs(plan.refs),
  );
  db.close();
}

/**
 * Writes a version-3 database the way Weft 3 did: the version-2 runs, plus importance scores of two task types
 * (no team size: version 3 had none).
 */
function writeVersion3(path: string): void {
  writeVersion2(path);
  const db = new Database(path);
  db.exec(SCHEMA_V3_ADDITIONS);
  db.pragma('user_version = 3');
  const insertScore = db.prepare('INSERT INTO team_scores VALUES (?, ?, ?, ?, ?, ?)');
  for (const [taskType, agent, importance, queries] of [
    ['mmlu', 'analyst', 1.5, 3],
    ['mmlu', 'solver', 0.75, 3],
    ['mmlu', 'novice', 0.25, 3],
    ['code', 'coder', 2, 4],
  ] as const) {
    insertScore.run('panel', taskType, agent, importance, queries, '2026-03-01T00:00:00.000Z');
  }
  db.close();
}

/** Writes a version-4 database the way Weft 4 did: the version-3 runs and scores, plus one recorded team size. */
function writeVersion4(path: string): void {
  writeVersion3(path);
  const db = new Database(path);
  db.exec(SCHEMA_V4_ADDITIONS);
  db.pragma('user_version = 4');
  db.prepare('INSERT INTO team_sizes VALUES (?, ?, ?, ?)').run('panel', 'mmlu', 2, '2026-04-01T00:00:00.000Z');
  db.close();
}

/** What schema version 5 (sessions) added to version 4, verbatim. */
const SCHEMA_V5_ADDITIONS = `
  CREATE TABLE sessions (
    session_id TEXT PRIMARY KEY NOT NULL,
    procedure  TEXT NOT NULL,
    pdl_path   TEXT NOT NULL,
    model      TEXT NOT NULL,
    options    TEXT NOT NULL,
    status     TEXT NOT NULL,
    turns      INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    last_seq   INTEGER NOT NULL DEFAULT 0,
    owner_pid  INTEGER,
    owner_host TEXT
  );
  CREATE INDEX sessions_by_created_at ON sessions (created_at);
  CREATE TABLE session_events (
    session_id TEXT NOT NULL REFERENCES sessions (session_id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,
    type       TEXT NOT NULL,
    at         REAL NOT NULL,
    data       TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
  );
`;

/** Writes a version-5 database the way Weft 5 did: the version-4 contents plus one session with one event. */
function writeVersion5(path: string): void {
  writeVersion4(path);
  const db = new Database(path);
  db.exec(SCHEMA_V5_ADDITIONS);
  db.pragma('user_version = 5');
  const at = '2026-05-01T00:00:00.000Z';
  db.prepare(
    `INSERT INTO sessions (session_id, procedure, pdl_path, model, options, status, turns, created_at, updated_at,
       last_seq) VALUES ('s-old', 'P', '', 'sim:', '{}', 'open', 0, ?, ?, 1)`,
  ).run(at, at);
  db.prepare('INSERT INTO session_events VALUES (?, ?, ?, ?, ?)').run(
    's-old',
    1,
    'session-start',
    0,
    '{"type":"session-start","at":0}',
  );
  db.close();
}

/** Every row of every table, to compare a file before and after. */
function contentsOf(path: string): Record<string, unknown[]> {
  const db = new Database(path, { readonly: true });
  try {
    const tables = (
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]
    ).map((row) => row.name);
    return Object.fromEntries(tables.map((table) => [table, db.prepare(`SELECT * FROM "${table}"`).all()]));
  } finally {
    db.close();
  }
}

function schemaOf(path: string): string[] {
  const db = new Database(path, { readonly: true });
  try {
    return (
      db.prepare('SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name').all() as { sql: string }[]
    ).map((row) => row.sql.replace(/\s+/g, ' '));
  } finally {
    db.close();
  }
}

describe('SQLite schema migrations', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'weft-migrate-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('opens a version-1 database, keeps every run readable and upgrades it in place', async () => {
    const path = join(dir, 'weft.db');
    writeVersion1(path);
    const store = openSqliteRunStore(path);
    const runs = await store.listRuns();
    expect(runs.map((run) => [run.runId, run.status, run.owner])).toEqual([
      ['old-1', 'completed', undefined],
      ['old-2', 'completed', undefined],
    ]);
    expect(runs[0]).not.toHaveProperty('owner');
    expect(((await store.events('old-2'))[1]?.event as unknown as { output: string }).output).toBe(shared);
    expect((await store.planVersions('old-1'))[0]?.workflow.subtasks[0]?.objective).toBe(planOnly);
    // The log continues where version 1 left it, and new fields work on old runs.
    await store.appendEvents('old-1', [{ type: 'run-resume', at: 7 }]);
    expect((await store.events('old-1')).map((stored) => stored.seq)).toEqual([1, 2, 3, 4]);
    await store.setOwner('old-1', { pid: 3, host: 'h' });
    expect((await store.getRun('old-1'))?.owner).toEqual({ pid: 3, host: 'h' });
    await store.close();
    const raw = new Database(path, { readonly: true });
    expect(raw.pragma('user_version', { simple: true })).toBe(SQLITE_SCHEMA_VERSION);
    raw.close();
  });

  it('ends with the same schema as a new database', async () => {
    await expectSameSchemaAsNew(dir, writeVersion1);
  });

  it('records which runs use the old blobs, so pruning collects them only with their last user', async () => {
    const path = join(dir, 'weft.db');
    writeVersion1(path);
    const store = openSqliteRunStore(path);
    expect(await store.stats()).toMatchObject({ blobs: 2 });
    expect(await store.deleteRuns([{ runId: 'old-1' }])).toMatchObject({
      removed: ['old-1'],
      events: 3,
      planVersions: 1,
      blobs: 1,
      blobBytes: Buffer.byteLength(planOnly),
    });
    expect(((await store.events('old-2'))[1]?.event as unknown as { output: string }).output).toBe(shared);
    expect(await store.deleteRuns([{ runId: 'old-2' }])).toMatchObject({
      blobs: 1,
      blobBytes: Buffer.byteLength(shared),
    });
    expect(await store.stats()).toEqual({ runs: 0, events: 0, planVersions: 0, blobs: 0, blobBytes: 0 });
    await store.close();
  });

  it('opens an upgraded database again without migrating twice', async () => {
    const path = join(dir, 'weft.db');
    writeVersion1(path);
    await openSqliteRunStore(path).close();
    const store = openSqliteRunStore(path);
    expect((await store.listRuns()).map((run) => run.runId)).toEqual(['old-1', 'old-2']);
    await store.close();
  });

  describe('version 2 to 3 (team scores)', () => {
    it('keeps every run, owner, event, plan and blob use, and adds empty team_scores (and, later, team_sizes) tables', async () => {
      const path = join(dir, 'weft.db');
      writeVersion2(path);
      const before = contentsOf(path);
      const store = openSqliteRunStore(path);
      expect((await store.listRuns()).map((run) => [run.runId, run.status, run.owner])).toEqual([
        ['v2-done', 'completed', { pid: 11, host: 'host-2' }],
        ['v2-live', 'running', { pid: 12, host: 'host-2' }],
      ]);
      expect(((await store.events('v2-live'))[1]?.event as unknown as { output: string }).output).toBe(shared);
      expect((await store.planVersions('v2-done')).map((version) => version.cause)).toEqual(['given plan']);
      expect(await store.teamScores('panel', 'mmlu')).toEqual([]);
      await store.saveTeamScores({
        team: 'panel',
        taskType: 'mmlu',
        scores: [{ agent: 'a', importance: 0.5, queries: 1 }],
      });
      expect((await store.teamScores('panel', 'mmlu')).map((score) => [score.agent, score.mean])).toEqual([['a', 0.5]]);
      await store.close();
      const after = contentsOf(path);
      // Everything version 2 held is there unchanged; the only new rows are the scores just saved.
      expect(Object.keys(after).sort()).toEqual(
        [...Object.keys(before), 'team_scores', 'team_sizes', ...ADDED_AFTER_4].sort(),
      );
      expect(after.team_sizes).toEqual([]);
      for (const table of Object.keys(before))
        expect({ table, rows: after[table] }).toEqual({ table, rows: before[table] });
      const raw = new Database(path, { readonly: true });
      expect(raw.pragma('user_version', { simple: true })).toBe(SQLITE_SCHEMA_VERSION);
      raw.close();
    });

    it('ends with the same schema as a new database', async () => {
      await expectSameSchemaAsNew(dir, writeVersion2);
    });

    it.each([
      ['2', writeVersion2, 2],
      // From 1, step 1→2 succeeds before step 2→3 fails: its changes must be rolled back too.
      ['1', writeVersion1, 1],
    ] as const)(
      'migrates in one transaction: a failed step leaves a version-%s file as it was',
      async (_label, write, version) => {
        expectFailedMigrationRolledBack(join(dir, 'weft.db'), write, 'team_scores', version);
      },
    );

    it('upgrades a version-1 database through both steps at once', async () => {
      const path = join(dir, 'weft.db');
      writeVersion1(path);
      const store = openSqliteRunStore(path);
      await store.saveTeamScores({
        team: 'panel',
        taskType: 'code',
        scores: [{ agent: 'b', importance: 1, queries: 2 }],
      });
      expect((await store.teamScores('panel', 'code'))[0]).toMatchObject({
        agent: 'b',
        importance: 1,
        queries: 2,
        mean: 0.5,
      });
      expect((await store.listRuns()).map((run) => run.runId)).toEqual(['old-1', 'old-2']);
      await store.close();
    });
  });

  describe('version 3 to 4 (team sizes)', () => {
    it('keeps every run and every stored score, and adds an empty team_sizes table', async () => {
      const path = join(dir, 'weft.db');
      writeVersion3(path);
      const before = contentsOf(path);
      const store = openSqliteRunStore(path);
      expect((await store.listRuns()).map((run) => [run.runId, run.status, run.owner])).toEqual([
        ['v2-done', 'completed', { pid: 11, host: 'host-2' }],
        ['v2-live', 'running', { pid: 12, host: 'host-2' }],
      ]);
      expect(((await store.events('v2-live'))[1]?.event as unknown as { output: string }).output).toBe(shared);
      expect(
        (await store.teamScores('panel', 'mmlu')).map((score) => [score.agent, score.importance, score.queries]),
      ).toEqual([
        ['analyst', 1.5, 3],
        ['solver', 0.75, 3],
        ['novice', 0.25, 3],
      ]);
      // Version 3 recorded no size: selection falls back to 4 until an optimisation records one.
      expect(await store.teamSize('panel', 'mmlu')).toBeUndefined();
      await store.saveTeamScores({
        team: 'panel',
        taskType: 'mmlu',
        scores: [{ agent: 'analyst', importance: 0.5, queries: 1 }],
        k: 2,
      });
      expect(await store.teamSize('panel', 'mmlu')).toBe(2);
      expect(await store.teamSize('panel', 'code')).toBeUndefined();
      expect((await store.teamScores('panel', 'mmlu'))[0]).toMatchObject({
        agent: 'analyst',
        importance: 2,
        queries: 4,
      });
      await store.close();
      const after = contentsOf(path);
      expect(Object.keys(after).sort()).toEqual([...Object.keys(before), 'team_sizes', ...ADDED_AFTER_4].sort());
      expect(after.team_sizes).toMatchObject([{ team: 'panel', task_type: 'mmlu', k: 2 }]);
      // Everything version 3 held is unchanged but the one score row the save above added to.
      for (const table of Object.keys(before).filter((name) => name !== 'team_scores')) {
        expect({ table, rows: after[table] }).toEqual({ table, rows: before[table] });
      }
      const untouched = (rows: unknown[] | undefined) =>
        (rows as { agent: string }[]).filter((row) => row.agent !== 'analyst');
      expect(untouched(after.team_scores)).toEqual(untouched(before.team_scores));
      const raw = new Database(path, { readonly: true });
      expect(raw.pragma('user_version', { simple: true })).toBe(SQLITE_SCHEMA_VERSION);
      raw.close();
    });

    it('ends with the same schema as a new database', async () => {
      await expectSameSchemaAsNew(dir, writeVersion3);
    });

    it.each([
      ['3', writeVersion3, 3],
      // From 2, step 2→3 succeeds before step 3→4 fails: its changes must be rolled back too.
      ['2', writeVersion2, 2],
    ] as const)(
      'migrates in one transaction: a failed step leaves a version-%s file as it was',
      async (_label, write, version) => {
        expectFailedMigrationRolledBack(join(dir, 'weft.db'), write, 'team_sizes', version);
      },
    );

    it('upgrades a version-1 database through every step at once', async () => {
      const path = join(dir, 'weft.db');
      writeVersion1(path);
      const store = openSqliteRunStore(path);
      await store.saveTeamScores({
        team: 'panel',
        taskType: 'code',
        scores: [{ agent: 'b', importance: 1, queries: 2 }],
        k: 1,
      });
      expect(await store.teamSize('panel', 'code')).toBe(1);
      expect((await store.listRuns()).map((run) => run.runId)).toEqual(['old-1', 'old-2']);
      await store.close();
    });
  });

  describe('version 4 to 5 (sessions)', () => {
    it('keeps every run, score and size, and adds empty sessions and session_events tables that work', async () => {
      const path = join(dir, 'weft.db');
      writeVersion4(path);
      const before = contentsOf(path);
      const store = openSqliteRunStore(path);
      expect((await store.listRuns()).map((run) => run.runId)).toEqual(['v2-done', 'v2-live']);
      expect(((await store.events('v2-live'))[1]?.event as unknown as { output: string }).output).toBe(shared);
      expect(await store.teamSize('panel', 'mmlu')).toBe(2);
      expect(await store.listSessions()).toEqual([]);
      await store.close();
      const after = contentsOf(path);
      expect(Object.keys(after).sort()).toEqual([...Object.keys(before), ...ADDED_AFTER_4].sort());
      for (const table of Object.keys(before))
        expect({ table, rows: after[table] }).toEqual({ table, rows: before[table] });
      expect(after['sessions']).toEqual([]);
      expect(after['session_events']).toEqual([]);

      const reopened = openSqliteRunStore(path);
      await reopened.createSession({ sessionId: 's-1', procedure: 'P', pdlPath: '', model: 'sim:', options: {} });
      await reopened.appendSessionEvents('s-1', [{ type: 'session-start', at: 0 }]);
      expect((await reopened.sessionEvents('s-1')).map((stored) => stored.seq)).toEqual([1]);
      expect((await reopened.listRuns()).map((run) => run.runId)).toEqual(['v2-done', 'v2-live']);
      await reopened.close();
      const raw = new Database(path, { readonly: true });
      expect(raw.pragma('user_version', { simple: true })).toBe(SQLITE_SCHEMA_VERSION);
      raw.close();
    });

    it('ends with the same schema as a new database', async () => {
      await expectSameSchemaAsNew(dir, writeVersion4);
    });

    it.each([
      ['4', writeVersion4, 4],
      // From 3, step 3→4 succeeds before step 4→5 fails: its changes must be rolled back too.
      ['3', writeVersion3, 3],
    ] as const)(
      'migrates in one transaction: a failed step leaves a version-%s file as it was',
      async (_label, write, version) => {
        expectFailedMigrationRolledBack(join(dir, 'weft.db'), write, 'sessions', version);
      },
    );
  });

  describe('version 5 to 6 (traces) and 6 to 7 (batches)', () => {
    it('is the current version', () => {
      expect(SQLITE_SCHEMA_VERSION).toBe(7);
    });

    it('keeps every run, score, size and session, and adds an empty traces table that works', async () => {
      const path = join(dir, 'weft.db');
      writeVersion5(path);
      const before = contentsOf(path);
      const store = openSqliteRunStore(path);
      expect((await store.listRuns()).map((run) => run.runId)).toEqual(['v2-done', 'v2-live']);
      expect(await store.teamSize('panel', 'mmlu')).toBe(2);
      expect((await store.sessionEvents('s-old')).map((stored) => stored.event.type)).toEqual(['session-start']);
      expect(await store.listTraces()).toEqual([]);
      await store.close();
      const after = contentsOf(path);
      expect(Object.keys(after).sort()).toEqual([...Object.keys(before), 'traces', 'batches', 'batch_records'].sort());
      expect(after['batches']).toEqual([]);
      for (const table of Object.keys(before))
        expect({ table, rows: after[table] }).toEqual({ table, rows: before[table] });

      const reopened = openSqliteRunStore(path);
      const trace = {
        traceId: 't-1',
        task: 'T',
        mode: 'react' as const,
        model: 'sim:',
        input: {},
        calls: [],
        success: false,
        usage: { calls: 0, inputTokens: 0, outputTokens: 0 },
      };
      await reopened.saveTrace(trace);
      expect(await reopened.getTrace('t-1')).toMatchObject(trace);
      await reopened.createBatch({ batchId: 'b-1', manifest: {} });
      await reopened.appendBatchRecords('b-1', [{ type: 'case-start', id: 1, attempt: 1 }]);
      expect((await reopened.batchRecords('b-1')).map((stored) => stored.seq)).toEqual([1]);
      expect((await reopened.listRuns()).map((run) => run.runId)).toEqual(['v2-done', 'v2-live']);
      await reopened.close();
      const raw = new Database(path, { readonly: true });
      expect(raw.pragma('user_version', { simple: true })).toBe(SQLITE_SCHEMA_VERSION);
      raw.close();
    });

    it('ends with the same schema as a new database', async () => {
      await expectSameSchemaAsNew(dir, writeVersion5);
    });

    it('migrates in one transaction: a failed step leaves a version-5 file as it was', () => {
      expectFailedMigrationRolledBack(join(dir, 'weft.db'), writeVersion5, 'traces', 5);
    });

    it('refuses a version-8 file (a newer Weft) and leaves it as it was', async () => {
      const path = join(dir, 'weft.db');
      writeVersion5(path);
      await openSqliteRunStore(path).close();
      const db = new Database(path);
      db.pragma('user_version = 8');
      db.close();
      const before = contentsOf(path);
      let failure: unknown;
      try {
        openSqliteRunStore(path);
      } catch (error) {
        failure = error;
      }
      expect((failure as { code?: string }).code).toBe('STORE');
      expect(String((failure as Error).message)).toContain(
        'schema version 8, but this Weft understands versions up to 7',
      );
      expect(contentsOf(path)).toEqual(before);
      const raw = new Database(path, { readonly: true });
      expect(raw.pragma('user_version', { simple: true })).toBe(8);
      raw.close();
    });
  });
});

/** Opens a file whose last migration step is blocked by a table in the way: it must fail and change nothing. */
function expectFailedMigrationRolledBack(
  path: string,
  write: (path: string) => void,
  table: string,
  version: number,
): void {
  write(path);
  // A table in the way makes the last step fail (a stand-in for a disk error mid-migration).
  const db = new Database(path);
  db.exec(`CREATE TABLE ${table} (note TEXT)`);
  db.prepare(`INSERT INTO ${table} VALUES (?)`).run('in the way');
  db.close();
  const before = contentsOf(path);
  const schemaBefore = schemaOf(path);
  let failure: unknown;
  try {
    openSqliteRunStore(path);
  } catch (error) {
    failure = error;
  }
  expect((failure as { code?: string }).code).toBe('STORE');
  expect(String((failure as Error).message)).toContain(table);
  expect(contentsOf(path)).toEqual(before);
  expect(schemaOf(path)).toEqual(schemaBefore);
  const raw = new Database(path, { readonly: true });
  expect(raw.pragma('user_version', { simple: true })).toBe(version);
  raw.close();
}

/** A file written by `write` and opened (so migrated) has exactly the schema of a file this Weft creates. */
async function expectSameSchemaAsNew(dir: string, write: (path: string) => void): Promise<void> {
  const old = join(dir, 'old.db');
  const fresh = join(dir, 'fresh.db');
  write(old);
  await openSqliteRunStore(old).close();
  await openSqliteRunStore(fresh).close();
  expect(schemaOf(old)).toEqual(schemaOf(fresh));
}
