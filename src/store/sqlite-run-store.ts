/**
 * The default RunStore: one SQLite file (`<home>/weft.db`) through better-sqlite3.
 *
 * - WAL mode, so readers (`weft show`, the dashboard) never block the run that writes; `synchronous=NORMAL`, which
 *   in WAL mode survives a killed process (the crash-resume case) and can lose only the last transactions on a
 *   power cut, never corrupt the file.
 * - One transaction per event batch; seq numbers come from `runs.last_seq` inside that (immediate) transaction,
 *   so two processes appending to one run still get a gap-free, duplicate-free log.
 * - Strings over 4 KiB are stored once in `blobs` keyed by sha256 (see json-blobs.ts).
 * - Conversations with procedures live in `sessions` and `session_events`, apart from runs: their events
 *   are kept whole (no blobs), so `stats`, `listRuns` and `deleteRuns` never see them.
 * - Execution traces live in `traces`, one row each, the whole record as JSON, also apart from runs.
 * - Batches of `weft exec --inputs` live in `batches` and `batch_records` (sqlite-batch-store.ts), apart from runs.
 * - The schema version is `PRAGMA user_version`, the file is tagged with `PRAGMA application_id` ('WEFT').
 *   A newer schema is refused; an existing file is checked (header, tag, `PRAGMA quick_check`) on a read-only
 *   connection before anything writes to it, and a file that is not a Weft database, or is damaged, is reported
 *   and never modified, overwritten or recreated.
 */
import { existsSync, mkdirSync, statSync, unlinkSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { WeftError } from '../errors.js';
import { decodeRefs, encodeRefs, inflate, parseJson } from './json-blobs.js';
import type {
  DeletedRuns,
  EventRecord,
  NewRun,
  PlanVersion,
  RunDeletion,
  RunOwner,
  RunRecord,
  RunStore,
  StoredEvent,
  StoredRunStatus,
  StoreStats,
} from './run-store.js';
import {
  mayDeleteRun,
  planVersionFromRow,
  runRecordFromRow,
  type DataRow,
  type PlanRow,
  type RunRow,
} from './store-rows.js';
import {
  checkSessionProgress,
  displaySessionId,
  isSessionId,
  prepareSession,
  sessionRecordFromRow,
  type NewSession,
  type SessionRecord,
  type SessionRow,
  type SessionStatus,
  type StoredSessionEvent,
} from './sessions.js';
import { BatchDelegatingStore } from './batch-delegating-store.js';
import type { BatchStore } from './batch-records.js';
import { createSqliteBatchStore } from './sqlite-batch-store.js';
import {
  checkTraceLimit,
  displayTraceId,
  isTraceId,
  prepareTrace,
  traceRecordFromRow,
  type NewTrace,
  type TraceFilter,
  type TraceRecord,
  type TraceRow,
  type TraceStore,
} from './traces.js';
import {
  checkOwner,
  checkStatus,
  eventLimit,
  prepareEventBatch,
  prepareEvents,
  preparePlanVersion,
  prepareRun,
} from './store-validation.js';
import {
  checkTeamKey,
  prepareTeamScores,
  teamScoresFromRows,
  type TeamScore,
  type TeamScoreRow,
  type TeamScoresUpdate,
} from './team-scores.js';

/** The schema this code writes. Bump it and append to MIGRATIONS together. */
export const SQLITE_SCHEMA_VERSION = 7;
/** `PRAGMA application_id` of a Weft database: the bytes of 'WEFT'. */
export const SQLITE_APPLICATION_ID = 0x57454654;
/** An SQLite INTEGER column takes any integer a number holds: pids and plan versions have no upper bound here. */
const MAX_INTEGER = Number.POSITIVE_INFINITY;

/** MIGRATIONS[n] takes a database from schema n to n + 1. */
const MIGRATIONS: readonly string[] = [
  `
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
  `,
  // 2: the owner of a run (interrupted runs), and which runs use which blobs (`weft prune` collects the rest).
  `
  ALTER TABLE runs ADD COLUMN owner_pid INTEGER;
  ALTER TABLE runs ADD COLUMN owner_host TEXT;
  CREATE TABLE run_blobs (
    run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    sha256 TEXT NOT NULL,
    PRIMARY KEY (run_id, sha256)
  ) WITHOUT ROWID;
  CREATE INDEX run_blobs_by_sha256 ON run_blobs (sha256);
  INSERT OR IGNORE INTO run_blobs (run_id, sha256)
    SELECT events.run_id, json_extract(ref.value, '$[1]') FROM events, json_each(events.blob_refs) AS ref
    WHERE events.blob_refs IS NOT NULL
    UNION
    SELECT plan_versions.run_id, json_extract(ref.value, '$[1]') FROM plan_versions, json_each(plan_versions.blob_refs) AS ref
    WHERE plan_versions.blob_refs IS NOT NULL;
  `,
  // 3: DyLAN agent importance scores, summed per (team, task type, agent); they belong to no run.
  `
  CREATE TABLE team_scores (
    team       TEXT NOT NULL,
    task_type  TEXT NOT NULL,
    agent      TEXT NOT NULL,
    importance REAL NOT NULL,
    queries    INTEGER NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (team, task_type, agent)
  ) WITHOUT ROWID;
  `,
  // 4: the optimised team size per (team, task type): the --k of the latest `weft team optimize`.
  `
  CREATE TABLE team_sizes (
    team       TEXT NOT NULL,
    task_type  TEXT NOT NULL,
    k          INTEGER NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (team, task_type)
  ) WITHOUT ROWID;
  `,
  // 5: conversations with procedures and their event logs; they belong to no run.
  `
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
  `,
  // 6: execution traces: written once, whole; the columns are what `listTraces` filters and sorts on.
  `
  CREATE TABLE traces (
    trace_id   TEXT PRIMARY KEY NOT NULL,
    created_at TEXT NOT NULL,
    task_key   TEXT,
    mode       TEXT NOT NULL,
    success    INTEGER NOT NULL,
    model      TEXT NOT NULL,
    record     TEXT NOT NULL
  );
  CREATE INDEX traces_by_created_at ON traces (created_at);
  CREATE INDEX traces_by_task_key ON traces (task_key, created_at);
  `,
  // 7: batches of `weft exec --inputs` (sqlite-batch-store.ts): the batch row and its append-only case log.
  `
  CREATE TABLE batches (
    batch_id   TEXT PRIMARY KEY NOT NULL,
    created_at TEXT NOT NULL,
    manifest   TEXT NOT NULL,
    importing  INTEGER NOT NULL DEFAULT 0,
    owner_pid  INTEGER,
    owner_host TEXT,
    last_seq   INTEGER NOT NULL DEFAULT 0
  );
  CREATE TABLE batch_records (
    batch_id    TEXT NOT NULL REFERENCES batches (batch_id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL,
    type        TEXT NOT NULL,
    case_key    TEXT NOT NULL,
    status      TEXT,
    interrupted INTEGER NOT NULL,
    latest      INTEGER NOT NULL,
    data        TEXT NOT NULL,
    PRIMARY KEY (batch_id, seq)
  ) WITHOUT ROWID;
  CREATE INDEX batch_records_by_case ON batch_records (batch_id, case_key, latest);
  CREATE INDEX batch_records_latest ON batch_records (batch_id, latest, status, seq);
  `,
];

export interface SqliteRunStoreOptions {
  /** How long a call waits for another connection's write lock, in milliseconds. Default 5000. */
  readonly busyTimeoutMs?: number;
  /** Run `PRAGMA quick_check` on an existing file before using it. Default true. */
  readonly quickCheck?: boolean;
  /** The clock for createdAt/updatedAt (tests pass a fixed one). */
  readonly now?: () => Date;
  /**
   * Open only a store that exists: neither the file nor its folder is created, and an empty file is not
   * initialised (NOT_FOUND instead). For commands that only read.
   */
  readonly mustExist?: boolean;
}

export interface SqliteRunStore extends RunStore, TraceStore, BatchStore {
  /** The absolute path of the database file, or `:memory:`. */
  readonly path: string;
  /** Team scores: the team engine's TeamScoreStore (team/team-score-store.ts), implemented here structurally. */
  saveTeamScores(update: TeamScoresUpdate): Promise<void>;
  teamScores(team: string, taskType: string): Promise<TeamScore[]>;
  teamSize(team: string, taskType: string): Promise<number | undefined>;
  /** Sessions: the dialog engine's SessionStore (dialog/session-store.ts), implemented here structurally. */
  createSession(session: NewSession): Promise<void>;
  appendSessionEvents(sessionId: string, events: readonly EventRecord[]): Promise<void>;
  sessionEvents(sessionId: string, afterSeq?: number): Promise<StoredSessionEvent[]>;
  getSession(sessionId: string): Promise<SessionRecord | undefined>;
  listSessions(): Promise<SessionRecord[]>;
  setSessionProgress(
    sessionId: string,
    progress: { readonly status: SessionStatus; readonly turns: number },
  ): Promise<void>;
  takeOverSession(sessionId: string, owner: RunOwner, previous: RunOwner | undefined): Promise<boolean>;
  releaseSession(sessionId: string, owner: RunOwner): Promise<void>;
}

const SESSION_COLUMNS =
  'session_id, procedure, pdl_path, model, options, status, turns, created_at, updated_at, owner_pid, owner_host';

const CORRUPT_CODES = new Set(['SQLITE_NOTADB', 'SQLITE_CORRUPT', 'SQLITE_CORRUPT_INDEX', 'SQLITE_CORRUPT_SEQUENCE']);

function sqliteCode(error: unknown): string | undefined {
  return error instanceof Database.SqliteError ? error.code : undefined;
}

function isCorruption(error: unknown): boolean {
  const code = sqliteCode(error);
  return code !== undefined && (CORRUPT_CODES.has(code) || code.startsWith('SQLITE_CORRUPT'));
}

function corrupted(path: string, detail: string, cause?: unknown): WeftError {
  return new WeftError(
    'STORE',
    `The run store file is not a Weft database or is corrupted (${detail}); it was left untouched: ${path}`,
    cause === undefined ? {} : { cause },
  );
}

/** Wraps a failure of SQLite (or of our own checks) in a WeftError('STORE'). */
function storeError(error: unknown, action: string, path: string, busyTimeoutMs: number): WeftError {
  if (error instanceof WeftError) return error;
  if (isCorruption(error)) return corrupted(path, (error as Error).message, error);
  const code = sqliteCode(error);
  if (code?.startsWith('SQLITE_BUSY') || code?.startsWith('SQLITE_LOCKED')) {
    return new WeftError(
      'STORE',
      `Cannot ${action}: the run store is locked by another process (waited ${busyTimeoutMs} ms): ${path}`,
      { cause: error, retryable: true },
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return new WeftError('STORE', `Cannot ${action}: ${message} (${path})`, { cause: error });
}

function countTables(db: Database.Database): number {
  const row = db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'").get() as {
    n: number;
  };
  return row.n;
}

/**
 * Checks the tag and schema version of an open database. Returns the schema version (0 for an empty database
 * that Weft may initialise). Throws for someone else's database or a newer schema.
 */
function checkHeader(db: Database.Database, path: string): number {
  const applicationId = db.pragma('application_id', { simple: true }) as number;
  const version = db.pragma('user_version', { simple: true }) as number;
  if (applicationId !== SQLITE_APPLICATION_ID) {
    if (applicationId !== 0) throw corrupted(path, `its application id is ${applicationId}, not Weft's`);
    if (countTables(db) > 0) throw corrupted(path, 'it is an SQLite database with tables Weft did not create');
    return 0;
  }
  if (version > SQLITE_SCHEMA_VERSION) {
    throw new WeftError(
      'STORE',
      `The run store uses schema version ${version}, but this Weft understands versions up to ` +
        `${SQLITE_SCHEMA_VERSION}; upgrade Weft to open it. The file was left untouched: ${path}`,
    );
  }
  return version;
}

/**
 * Looks at an existing file through a read-only connection, which never writes to the file (not even a WAL
 * checkpoint when it closes). Side files (-wal, -shm) that this look created are removed again when the file is
 * refused.
 */
function inspectExisting(path: string, options: { busyTimeoutMs: number; quickCheck: boolean }): void {
  const sideFiles = [`${path}-wal`, `${path}-shm`].filter((side) => !existsSync(side));
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true, timeout: options.busyTimeoutMs });
    checkHeader(db, path);
    if (options.quickCheck) {
      const rows = db.pragma('quick_check(5)') as { quick_check: string }[];
      const problems = rows.map((row) => row.quick_check).filter((line) => line !== 'ok');
      if (problems.length > 0) throw corrupted(path, `quick_check: ${problems.join('; ')}`);
    }
    db.close();
  } catch (error) {
    db?.close();
    // A read-only connection cannot always open a WAL database (no -shm and a read-only folder); the read-write
    // open that follows then reports what is wrong.
    if (sqliteCode(error) === 'SQLITE_CANTOPEN') return;
    const failure = storeError(error, 'open the run store', path, options.busyTimeoutMs);
    for (const side of sideFiles) {
      try {
        // Only files this look created; a read-only connection never puts frames in a new -wal, and the -shm
        // is an index SQLite rebuilds.
        if (existsSync(side) && (side.endsWith('-shm') || statSync(side).size === 0)) unlinkSync(side);
      } catch {
        // Best effort: the database file itself is what must stay untouched.
      }
    }
    throw failure;
  }
}

function migrate(db: Database.Database, path: string): void {
  db.transaction(() => {
    const version = checkHeader(db, path);
    if (version === SQLITE_SCHEMA_VERSION) return;
    for (let next = version; next < SQLITE_SCHEMA_VERSION; next += 1) db.exec(MIGRATIONS[next] as string);
    db.pragma(`application_id = ${SQLITE_APPLICATION_ID}`);
    db.pragma(`user_version = ${SQLITE_SCHEMA_VERSION}`);
  }).immediate();
}

/**
 * Opens (creating it and its folder if absent, unless `mustExist`) the SQLite run store at `path`. `:memory:` gives a private
 * in-memory store. Throws WeftError('STORE') for a file that is not a Weft database, is damaged, or has a newer
 * schema; such a file is left exactly as it was.
 */
export function openSqliteRunStore(path: string, options: SqliteRunStoreOptions = {}): SqliteRunStore {
  const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  const quickCheck = options.quickCheck ?? true;
  const inMemory = path === ':memory:';
  const fullPath = inMemory ? path : resolve(path);

  const mustExist = options.mustExist === true && !inMemory;
  if (mustExist && !(existsSync(fullPath) && statSync(fullPath).isFile() && statSync(fullPath).size > 0)) {
    throw new WeftError('NOT_FOUND', `No run store at ${fullPath}`);
  }

  if (!inMemory) {
    try {
      if (!mustExist) mkdirSync(dirname(fullPath), { recursive: true });
    } catch (error) {
      throw storeError(error, 'create the folder of the run store', fullPath, busyTimeoutMs);
    }
    if (existsSync(fullPath)) {
      if (!statSync(fullPath).isFile()) throw new WeftError('STORE', `The run store path is not a file: ${fullPath}`);
      if (statSync(fullPath).size > 0) inspectExisting(fullPath, { busyTimeoutMs, quickCheck });
    }
  }

  let db: Database.Database | undefined;
  try {
    // fileMustExist: a file deleted since the check above is not created again.
    db = new Database(fullPath, { timeout: busyTimeoutMs, fileMustExist: mustExist });
    if (!inMemory) {
      const mode = db.pragma('journal_mode = WAL', { simple: true }) as string;
      if (mode !== 'wal')
        throw new WeftError('STORE', `Cannot switch the run store to WAL mode (got ${mode}): ${fullPath}`);
    }
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    migrate(db, fullPath);
  } catch (error) {
    db?.close();
    throw storeError(error, 'open the run store', fullPath, busyTimeoutMs);
  }
  return new SqliteStore(db, fullPath, busyTimeoutMs, options.now ?? (() => new Date()));
}

class SqliteStore extends BatchDelegatingStore implements SqliteRunStore {
  private closed = false;
  private readonly statements;

  constructor(
    private readonly db: Database.Database,
    readonly path: string,
    private readonly busyTimeoutMs: number,
    private readonly now: () => Date,
  ) {
    super();
    this.statements = {
      insertRun: db.prepare(
        'INSERT INTO runs (run_id, task, model, options, status, created_at, updated_at, owner_pid, owner_host) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      getRun: db.prepare<[string], RunRow>('SELECT * FROM runs WHERE run_id = ?'),
      runExists: db.prepare<[string], { one: number }>('SELECT 1 AS one FROM runs WHERE run_id = ?'),
      listRuns: db.prepare<[], RunRow>('SELECT * FROM runs ORDER BY created_at, rowid'),
      touchRun: db.prepare('UPDATE runs SET updated_at = ? WHERE run_id = ?'),
      setStatus: db.prepare('UPDATE runs SET status = ?, updated_at = ? WHERE run_id = ?'),
      setOwner: db.prepare('UPDATE runs SET owner_pid = ?, owner_host = ?, updated_at = ? WHERE run_id = ?'),
      // One statement, so the comparison and the write cannot interleave with another process's (`IS` matches NULL).
      takeOver: db.prepare(
        `UPDATE runs SET owner_pid = ?, owner_host = ?, status = 'running', updated_at = ?
         WHERE run_id = ? AND owner_pid IS ? AND owner_host IS ?`,
      ),
      reserveSeq: db.prepare<[number, string, string], { last_seq: number }>(
        'UPDATE runs SET last_seq = last_seq + ?, updated_at = ? WHERE run_id = ? RETURNING last_seq',
      ),
      insertEvent: db.prepare('INSERT INTO events (run_id, seq, type, at, data, blob_refs) VALUES (?, ?, ?, ?, ?, ?)'),
      events: db.prepare<[string, number, number], DataRow & { seq: number }>(
        // LIMIT -1 is SQLite's "no limit".
        'SELECT seq, data, blob_refs FROM events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?',
      ),
      insertPlan: db.prepare(
        'INSERT INTO plan_versions (run_id, version, cause, created_at, data, blob_refs) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      plans: db.prepare<[string], PlanRow>(
        'SELECT version, cause, created_at, data, blob_refs FROM plan_versions WHERE run_id = ? ORDER BY version',
      ),
      insertBlob: db.prepare(
        'INSERT INTO blobs (sha256, bytes, content) VALUES (?, ?, ?) ON CONFLICT (sha256) DO NOTHING',
      ),
      blob: db.prepare<[string], { content: string }>('SELECT content FROM blobs WHERE sha256 = ?'),
      insertBlobUse: db.prepare('INSERT INTO run_blobs (run_id, sha256) VALUES (?, ?) ON CONFLICT DO NOTHING'),
      deletable: db.prepare<
        [string],
        { status: string; owner_pid: number | null; owner_host: string | null; events: number; plans: number }
      >(
        `SELECT status, owner_pid, owner_host, (SELECT count(*) FROM events WHERE run_id = runs.run_id) AS events,
                (SELECT count(*) FROM plan_versions WHERE run_id = runs.run_id) AS plans
         FROM runs WHERE run_id = ?`,
      ),
      blobsOfRun: db.prepare<[string], { sha256: string }>('SELECT sha256 FROM run_blobs WHERE run_id = ?'),
      deleteRun: db.prepare('DELETE FROM runs WHERE run_id = ?'),
      // Deletes a blob only when no run uses it any more.
      deleteUnusedBlob: db.prepare<[string], { bytes: number }>(
        'DELETE FROM blobs WHERE sha256 = ? AND NOT EXISTS (SELECT 1 FROM run_blobs WHERE run_blobs.sha256 = blobs.sha256) RETURNING bytes',
      ),
      // Accumulates: a first save inserts, later ones add to the totals.
      addTeamScore: db.prepare(
        `INSERT INTO team_scores (team, task_type, agent, importance, queries, updated_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (team, task_type, agent) DO UPDATE SET importance = importance + excluded.importance,
           queries = queries + excluded.queries, updated_at = excluded.updated_at`,
      ),
      teamScores: db.prepare<[string, string], TeamScoreRow>(
        'SELECT agent, importance, queries, updated_at FROM team_scores WHERE team = ? AND task_type = ?',
      ),
      // The latest save wins.
      setTeamSize: db.prepare(
        `INSERT INTO team_sizes (team, task_type, k, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (team, task_type) DO UPDATE SET k = excluded.k, updated_at = excluded.updated_at`,
      ),
      teamSize: db.prepare<[string, string], { k: number }>(
        'SELECT k FROM team_sizes WHERE team = ? AND task_type = ?',
      ),
      insertSession: db.prepare(
        `INSERT INTO sessions (session_id, procedure, pdl_path, model, options, status, turns, created_at, updated_at,
           owner_pid, owner_host) VALUES (?, ?, ?, ?, ?, 'open', 0, ?, ?, ?, ?)`,
      ),
      getSession: db.prepare<[string], SessionRow>(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE session_id = ?`),
      sessionExists: db.prepare<[string], { one: number }>('SELECT 1 AS one FROM sessions WHERE session_id = ?'),
      listSessions: db.prepare<[], SessionRow>(`SELECT ${SESSION_COLUMNS} FROM sessions ORDER BY created_at, rowid`),
      reserveSessionSeq: db.prepare<[number, string, string], { last_seq: number }>(
        'UPDATE sessions SET last_seq = last_seq + ?, updated_at = ? WHERE session_id = ? RETURNING last_seq',
      ),
      insertSessionEvent: db.prepare(
        'INSERT INTO session_events (session_id, seq, type, at, data) VALUES (?, ?, ?, ?, ?)',
      ),
      sessionEvents: db.prepare<[string, number], { seq: number; data: string }>(
        'SELECT seq, data FROM session_events WHERE session_id = ? AND seq > ? ORDER BY seq',
      ),
      setSessionProgress: db.prepare('UPDATE sessions SET status = ?, turns = ?, updated_at = ? WHERE session_id = ?'),
      // One statement, as takeOver above: of several processes, exactly one matches the owner it read.
      takeOverSession: db.prepare(
        `UPDATE sessions SET owner_pid = ?, owner_host = ?, updated_at = ?
         WHERE session_id = ? AND owner_pid IS ? AND owner_host IS ?`,
      ),
      releaseSession: db.prepare(
        `UPDATE sessions SET owner_pid = NULL, owner_host = NULL, updated_at = ?
         WHERE session_id = ? AND owner_pid = ? AND owner_host = ?`,
      ),
      insertTrace: db.prepare(
        'INSERT INTO traces (trace_id, created_at, task_key, mode, success, model, record) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      getTrace: db.prepare<[string], TraceRow>('SELECT trace_id, created_at, record FROM traces WHERE trace_id = ?'),
      // NULL parameters switch a filter off; LIMIT -1 is no limit.
      listTraces: db.prepare<[string | null, string | null, number | null, number | null, number], TraceRow>(
        `SELECT trace_id, created_at, record FROM traces
         WHERE (? IS NULL OR task_key = ?) AND (? IS NULL OR success = ?)
         ORDER BY created_at DESC, rowid DESC LIMIT ?`,
      ),
      stats: db.prepare<
        [],
        { runs: number; events: number; planVersions: number; blobs: number; blobBytes: number | null }
      >(
        `SELECT (SELECT count(*) FROM runs) AS runs, (SELECT count(*) FROM events) AS events,
                (SELECT count(*) FROM plan_versions) AS planVersions, (SELECT count(*) FROM blobs) AS blobs,
                (SELECT sum(bytes) FROM blobs) AS blobBytes`,
      ),
    };
  }

  /** Runs `body` with the store's error handling: closed store, SQLite failures → WeftError('STORE'). */
  private use<T>(action: string, body: () => T): Promise<T> {
    if (this.closed)
      return Promise.reject(new WeftError('STORE', `Cannot ${action}: the run store is closed (${this.path})`));
    try {
      return Promise.resolve(body());
    } catch (error) {
      return Promise.reject(storeError(error, action, this.path, this.busyTimeoutMs));
    }
  }

  private notFound(runId: string): WeftError {
    return new WeftError('NOT_FOUND', `No run with id ${JSON.stringify(runId)} in ${this.path}`);
  }

  private requireRun(runId: string): void {
    if (this.statements.runExists.get(runId) === undefined) throw this.notFound(runId);
  }

  private sessionNotFound(sessionId: string): WeftError {
    return new WeftError('NOT_FOUND', `No session with id ${displaySessionId(sessionId)} in ${this.path}`);
  }

  private requireSession(sessionId: string): void {
    if (this.statements.sessionExists.get(sessionId) === undefined) throw this.sessionNotFound(sessionId);
  }

  /** `use` for a call naming a session: an id no session can have is NOT_FOUND without a query. */
  private useSession<T>(action: string, sessionId: string, body: () => T): Promise<T> {
    return this.use(`${action} ${displaySessionId(sessionId)}`, () => {
      if (!isSessionId(sessionId)) throw this.sessionNotFound(sessionId);
      return body();
    });
  }

  /** Stores each blob once and records that `runId` uses it (what garbage collection goes by). */
  private saveBlobs(runId: string, blobs: ReadonlyMap<string, string>): void {
    for (const [sha256, content] of blobs) {
      this.statements.insertBlob.run(sha256, Buffer.byteLength(content, 'utf8'), content);
      this.statements.insertBlobUse.run(runId, sha256);
    }
  }

  /** A blob reader that reads each blob at most once per call. */
  private blobReader(): (sha256: string) => string | undefined {
    const cache = new Map<string, string>();
    return (sha256) => {
      let content = cache.get(sha256);
      if (content === undefined) {
        content = this.statements.blob.get(sha256)?.content;
        if (content !== undefined) cache.set(sha256, content);
      }
      return content;
    };
  }

  createRun(run: NewRun): Promise<void> {
    return this.use(`create run ${run.runId}`, () => {
      const { runId, options, owner } = prepareRun(run, MAX_INTEGER);
      const now = this.now().toISOString();
      try {
        this.statements.insertRun.run(
          runId,
          run.task,
          run.model,
          options,
          'running',
          now,
          now,
          owner?.pid ?? null,
          owner?.host ?? null,
        );
      } catch (error) {
        if (sqliteCode(error) === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
          throw new WeftError('STORE', `A run with id ${JSON.stringify(runId)} already exists in ${this.path}`, {
            cause: error,
          });
        }
        throw error;
      }
    });
  }

  appendEvents(runId: string, events: readonly EventRecord[]): Promise<void> {
    return this.use(`append events to run ${runId}`, () => {
      if (events.length === 0) {
        this.requireRun(runId);
        return;
      }
      // Check and serialise everything before the transaction: a bad event means nothing is written.
      const prepared = prepareEvents(runId, events);
      const now = this.now().toISOString();
      this.db
        .transaction(() => {
          const reserved = this.statements.reserveSeq.get(prepared.length, now, runId);
          if (reserved === undefined) throw this.notFound(runId);
          let seq = reserved.last_seq - prepared.length;
          for (const { type, at, deflated } of prepared) {
            seq += 1;
            this.saveBlobs(runId, deflated.blobs);
            this.statements.insertEvent.run(runId, seq, type, at, deflated.json, encodeRefs(deflated.refs));
          }
        })
        .immediate();
    });
  }

  savePlanVersion(version: Omit<PlanVersion, 'createdAt'>): Promise<void> {
    const { runId } = version;
    return this.use(`save plan version ${version.version} of run ${runId}`, () => {
      const deflated = preparePlanVersion(version, MAX_INTEGER);
      const now = this.now().toISOString();
      this.db
        .transaction(() => {
          this.requireRun(runId);
          this.saveBlobs(runId, deflated.blobs);
          try {
            this.statements.insertPlan.run(
              runId,
              version.version,
              version.cause,
              now,
              deflated.json,
              encodeRefs(deflated.refs),
            );
          } catch (error) {
            if (sqliteCode(error) === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
              throw new WeftError('STORE', `Plan version ${version.version} of run ${runId} already exists`, {
                cause: error,
              });
            }
            throw error;
          }
          this.statements.touchRun.run(now, runId);
        })
        .immediate();
    });
  }

  setStatus(runId: string, status: StoredRunStatus): Promise<void> {
    return this.use(`set the status of run ${runId}`, () => {
      checkStatus(status);
      const result = this.statements.setStatus.run(status, this.now().toISOString(), runId);
      if (result.changes === 0) throw this.notFound(runId);
    });
  }

  setOwner(runId: string, owner: RunOwner): Promise<void> {
    return this.use(`set the owner of run ${runId}`, () => {
      const checked = checkOwner(owner, `the owner of run ${runId}`, MAX_INTEGER);
      const result = this.statements.setOwner.run(checked.pid, checked.host, this.now().toISOString(), runId);
      if (result.changes === 0) throw this.notFound(runId);
    });
  }

  takeOverRun(runId: string, owner: RunOwner, previous: RunOwner | undefined): Promise<boolean> {
    return this.use(`take over run ${runId}`, () => {
      const checked = checkOwner(owner, `the owner of run ${runId}`, MAX_INTEGER);
      const result = this.statements.takeOver.run(
        checked.pid,
        checked.host,
        this.now().toISOString(),
        runId,
        previous?.pid ?? null,
        previous?.host ?? null,
      );
      if (result.changes === 1) return true;
      if (this.statements.runExists.get(runId) === undefined) throw this.notFound(runId);
      return false;
    });
  }

  getRun(runId: string): Promise<RunRecord | undefined> {
    return this.use(`read run ${runId}`, () => {
      const row = this.statements.getRun.get(runId);
      return row === undefined ? undefined : runRecordFromRow(row);
    });
  }

  listRuns(): Promise<RunRecord[]> {
    return this.use('list runs', () => this.statements.listRuns.all().map((row) => runRecordFromRow(row)));
  }

  events(runId: string, afterSeq = 0, limit?: number): Promise<StoredEvent[]> {
    return this.use(`read the events of run ${runId}`, () =>
      // One read transaction: the existence check and the rows come from the same snapshot.
      this.db.transaction(() => {
        this.requireRun(runId);
        const blob = this.blobReader();
        return this.statements.events.all(runId, afterSeq, eventLimit(limit) ?? -1).map((row): StoredEvent => {
          const what = `event ${row.seq} of run ${runId}`;
          const event = inflate(row.data, decodeRefs(row.blob_refs, what), blob, what) as EventRecord;
          return { runId, seq: row.seq, event };
        });
      })(),
    );
  }

  planVersions(runId: string): Promise<PlanVersion[]> {
    return this.use(`read the plan versions of run ${runId}`, () =>
      this.db.transaction(() => {
        this.requireRun(runId);
        const blob = this.blobReader();
        return this.statements.plans
          .all(runId)
          .map((row) =>
            planVersionFromRow(
              runId,
              row,
              decodeRefs(row.blob_refs, `plan version ${row.version} of run ${runId}`),
              blob,
            ),
          );
      })(),
    );
  }

  stats(): Promise<StoreStats> {
    return this.use('read the store statistics', () => {
      const row = this.statements.stats.get() as NonNullable<ReturnType<typeof this.statements.stats.get>>;
      return { ...row, blobBytes: row.blobBytes ?? 0 };
    });
  }

  deleteRuns(runs: readonly RunDeletion[], options: { readonly dryRun?: boolean } = {}): Promise<DeletedRuns> {
    return this.use(options.dryRun ? 'measure a prune of the run store' : 'prune the run store', () => {
      const removed: string[] = [];
      const skipped: string[] = [];
      let events = 0;
      let planVersions = 0;
      let blobs = 0;
      let blobBytes = 0;
      const rollback = new Error('dry run');
      const body = this.db.transaction(() => {
        const used = new Set<string>();
        const seen = new Set<string>();
        for (const { runId, deadOwner } of runs) {
          if (seen.has(runId)) continue;
          seen.add(runId);
          const row = this.statements.deletable.get(runId);
          if (row === undefined || !mayDeleteRun(row, deadOwner)) {
            skipped.push(runId);
            continue;
          }
          for (const { sha256 } of this.statements.blobsOfRun.all(runId)) used.add(sha256);
          // ON DELETE CASCADE takes the events, plan versions and blob uses with the run.
          this.statements.deleteRun.run(runId);
          removed.push(runId);
          events += row.events;
          planVersions += row.plans;
        }
        for (const sha256 of used) {
          const gone = this.statements.deleteUnusedBlob.get(sha256);
          if (gone !== undefined) {
            blobs += 1;
            blobBytes += gone.bytes;
          }
        }
        if (options.dryRun) throw rollback;
      });
      try {
        body.immediate();
      } catch (error) {
        if (error !== rollback) throw error;
      }
      return { removed, skipped, events, planVersions, blobs, blobBytes };
    });
  }

  saveTeamScores(update: TeamScoresUpdate): Promise<void> {
    return this.use(`save the scores of team ${JSON.stringify(update?.team)}`, () => {
      const { team, taskType, scores, k } = prepareTeamScores(update);
      if (scores.length === 0 && k === undefined) return;
      const now = this.now().toISOString();
      this.db
        .transaction(() => {
          for (const score of scores)
            this.statements.addTeamScore.run(team, taskType, score.agent, score.importance, score.queries, now);
          if (k !== undefined) this.statements.setTeamSize.run(team, taskType, k, now);
        })
        .immediate();
    });
  }

  teamScores(team: string, taskType: string): Promise<TeamScore[]> {
    return this.use(`read the scores of team ${JSON.stringify(team)}`, () => {
      checkTeamKey(team, taskType);
      return teamScoresFromRows(this.statements.teamScores.all(team, taskType));
    });
  }

  teamSize(team: string, taskType: string): Promise<number | undefined> {
    return this.use(`read the size of team ${JSON.stringify(team)}`, () => {
      checkTeamKey(team, taskType);
      return this.statements.teamSize.get(team, taskType)?.k;
    });
  }

  createSession(session: NewSession): Promise<void> {
    return this.use(`create session ${displaySessionId(session?.sessionId)}`, () => {
      const prepared = prepareSession(session, MAX_INTEGER);
      const now = this.now().toISOString();
      try {
        this.statements.insertSession.run(
          prepared.sessionId,
          prepared.procedure,
          prepared.pdlPath,
          prepared.model,
          prepared.options,
          now,
          now,
          prepared.owner?.pid ?? null,
          prepared.owner?.host ?? null,
        );
      } catch (error) {
        if (sqliteCode(error) === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
          throw new WeftError(
            'STORE',
            `A session with id ${JSON.stringify(prepared.sessionId)} already exists in ${this.path}`,
            { cause: error },
          );
        }
        throw error;
      }
    });
  }

  appendSessionEvents(sessionId: string, events: readonly EventRecord[]): Promise<void> {
    return this.useSession('append events to session', sessionId, () => {
      // Checked and serialised before the transaction: a bad event means nothing is written.
      const prepared = prepareEventBatch(events, `session ${sessionId}`, Number.POSITIVE_INFINITY);
      if (prepared.length === 0) {
        this.requireSession(sessionId);
        return;
      }
      const now = this.now().toISOString();
      this.db
        .transaction(() => {
          const reserved = this.statements.reserveSessionSeq.get(prepared.length, now, sessionId);
          if (reserved === undefined) throw this.sessionNotFound(sessionId);
          let seq = reserved.last_seq - prepared.length;
          for (const { type, at, deflated } of prepared) {
            seq += 1;
            this.statements.insertSessionEvent.run(sessionId, seq, type, at, deflated.json);
          }
        })
        .immediate();
    });
  }

  sessionEvents(sessionId: string, afterSeq = 0): Promise<StoredSessionEvent[]> {
    return this.useSession('read the events of session', sessionId, () =>
      this.db.transaction(() => {
        this.requireSession(sessionId);
        return this.statements.sessionEvents.all(sessionId, afterSeq).map(
          (row): StoredSessionEvent => ({
            sessionId,
            seq: row.seq,
            event: parseJson(row.data, `event ${row.seq} of session ${sessionId}`) as EventRecord,
          }),
        );
      })(),
    );
  }

  getSession(sessionId: string): Promise<SessionRecord | undefined> {
    if (!isSessionId(sessionId)) return this.use('read a session', () => undefined);
    return this.useSession('read session', sessionId, () => {
      const row = this.statements.getSession.get(sessionId);
      return row === undefined ? undefined : sessionRecordFromRow(row);
    });
  }

  listSessions(): Promise<SessionRecord[]> {
    return this.use('list sessions', () => this.statements.listSessions.all().map((row) => sessionRecordFromRow(row)));
  }

  setSessionProgress(
    sessionId: string,
    progress: { readonly status: SessionStatus; readonly turns: number },
  ): Promise<void> {
    return this.useSession('record the progress of session', sessionId, () => {
      const { status, turns } = checkSessionProgress(sessionId, progress, MAX_INTEGER);
      const result = this.statements.setSessionProgress.run(status, turns, this.now().toISOString(), sessionId);
      if (result.changes === 0) throw this.sessionNotFound(sessionId);
    });
  }

  takeOverSession(sessionId: string, owner: RunOwner, previous: RunOwner | undefined): Promise<boolean> {
    return this.useSession('take over session', sessionId, () => {
      const checked = checkOwner(owner, `the owner of session ${sessionId}`, MAX_INTEGER);
      const before =
        previous === undefined
          ? undefined
          : checkOwner(previous, `the previous owner of session ${sessionId}`, MAX_INTEGER);
      const result = this.statements.takeOverSession.run(
        checked.pid,
        checked.host,
        this.now().toISOString(),
        sessionId,
        before?.pid ?? null,
        before?.host ?? null,
      );
      if (result.changes === 1) return true;
      this.requireSession(sessionId);
      return false;
    });
  }

  releaseSession(sessionId: string, owner: RunOwner): Promise<void> {
    return this.useSession('release session', sessionId, () => {
      const checked = checkOwner(owner, `the owner of session ${sessionId}`, MAX_INTEGER);
      const result = this.statements.releaseSession.run(this.now().toISOString(), sessionId, checked.pid, checked.host);
      if (result.changes === 0) this.requireSession(sessionId);
    });
  }

  saveTrace(trace: NewTrace): Promise<void> {
    return this.use(`save trace ${displayTraceId(trace?.traceId)}`, () => {
      const prepared = prepareTrace(trace, MAX_INTEGER);
      try {
        this.statements.insertTrace.run(
          prepared.traceId,
          this.now().toISOString(),
          prepared.taskKey,
          prepared.mode,
          prepared.success ? 1 : 0,
          prepared.model,
          prepared.record,
        );
      } catch (error) {
        if (sqliteCode(error) === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
          throw new WeftError('STORE', `A trace with id ${prepared.traceId} already exists in ${this.path}`, {
            cause: error,
          });
        }
        throw error;
      }
    });
  }

  getTrace(traceId: string): Promise<TraceRecord | undefined> {
    return this.use(`read trace ${displayTraceId(traceId)}`, () => {
      if (!isTraceId(traceId)) return undefined;
      const row = this.statements.getTrace.get(traceId);
      return row === undefined ? undefined : traceRecordFromRow(row);
    });
  }

  listTraces(filter: TraceFilter = {}): Promise<TraceRecord[]> {
    return this.use('list traces', () => {
      const limit = checkTraceLimit(filter.limit);
      const taskKey = filter.taskKey ?? null;
      const success = filter.success === undefined ? null : filter.success ? 1 : 0;
      return this.statements.listTraces
        .all(taskKey, taskKey, success, success, limit ?? -1)
        .map((row) => traceRecordFromRow(row));
    });
  }

  // Batches: sqlite-batch-store.ts, on this connection and behind this store's error handling.
  protected openBatchStore(): BatchStore {
    return createSqliteBatchStore(this.db, this.path, (action, body) => this.use(action, body), this.now);
  }

  close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      this.db.close();
    }
    return Promise.resolve();
  }
}
