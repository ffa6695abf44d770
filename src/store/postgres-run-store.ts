/**
 * The RunStore on a Postgres server, through `pg` (an optional dependency, loaded on first use; see load-pg.ts).
 * Same behaviour as the SQLite store: test/store/describe-run-store.ts runs against both.
 *
 * - Tables live in one schema (`weft` unless told otherwise), created idempotently in one transaction under an
 *   advisory lock, so processes opening the store at once do not race. `schema_version` holds the version; a
 *   newer one is refused, and a schema holding tables Weft did not create is reported and left untouched.
 * - Opening checks the server with `SELECT 1`: an unreachable server is a WeftError('STORE') within
 *   `connectTimeoutMs` (3 s) plus a second of grace, never a hang. No message ever shows the password.
 * - One transaction per event batch; seq numbers come from `runs.last_seq` (`UPDATE … RETURNING` locks the run's
 *   row), so writers in several processes get a gap-free, duplicate-free log, and each batch stays contiguous.
 * - Values are kept as JSON text, not jsonb: jsonb reorders keys and refuses `\u0000`, and what is read back must
 *   equal what was written. Strings over 4 KiB are stored once in `blobs` keyed by sha256 (json-blobs.ts), as a
 *   JSON string literal so that any string (NUL characters included) round-trips.
 * - Locks are always taken in one order (the run's row, then blob rows sorted by hash) so writers cannot deadlock.
 *   `deleteRuns` locks its runs' rows, then the blobs table against writers (SHARE ROW EXCLUSIVE: readers go on)
 *   so that no blob it collects is being referenced by a transaction it cannot see yet.
 * - Conversations with procedures live in `sessions` and `session_events`, apart from runs: their events
 *   are kept whole (no blobs), so `stats`, `listRuns` and `deleteRuns` never see them. Appends lock the session's
 *   row (`UPDATE … RETURNING last_seq`), as for runs.
 * - Execution traces live in `traces`, one row each, the whole record as JSON text, also apart from runs.
 * - Batches of `weft exec --inputs` live in `batches` and `batch_records` (postgres-batch-store.ts), apart from runs.
 */
import type PG from 'pg';
import { WeftError } from '../errors.js';
import { integerOption } from '../integer-option.js';
import { decodeRefs, encodeRefs, inflate, parseJson, type Deflated } from './json-blobs.js';
import { loadPg, type PgImporter } from './load-pg.js';
import { BatchDelegatingStore } from './batch-delegating-store.js';
import type { BatchStore } from './batch-records.js';
import { createPostgresBatchStore } from './postgres-batch-store.js';
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
import { redactUrl, scrubSecrets, type RedactedUrl } from '../text/redact-url.js';

/** The schema this code writes. Bump it and append to MIGRATIONS together. */
export const POSTGRES_SCHEMA_VERSION = 6;
export const DEFAULT_POSTGRES_SCHEMA = 'weft';
/** The largest value of a Postgres `integer` column (pids, plan versions). */
const MAX_INTEGER = 0x7fffffff;

/** MIGRATIONS[n] takes a schema from version n to n + 1; `s` is the quoted schema name. */
const MIGRATIONS: readonly ((s: string) => string)[] = [
  (s) => `
  CREATE TABLE ${s}.runs (
    run_id     text PRIMARY KEY,
    position   bigint GENERATED ALWAYS AS IDENTITY,
    task       text NOT NULL,
    model      text NOT NULL,
    options    text NOT NULL,
    status     text NOT NULL,
    created_at text NOT NULL,
    updated_at text NOT NULL,
    last_seq   integer NOT NULL DEFAULT 0,
    owner_pid  integer,
    owner_host text
  );
  CREATE INDEX runs_by_created_at ON ${s}.runs (created_at, position);
  CREATE TABLE ${s}.events (
    run_id    text NOT NULL REFERENCES ${s}.runs (run_id) ON DELETE CASCADE,
    seq       integer NOT NULL,
    type      text NOT NULL,
    at        double precision NOT NULL,
    data      text NOT NULL,
    blob_refs text,
    PRIMARY KEY (run_id, seq)
  );
  CREATE TABLE ${s}.plan_versions (
    run_id     text NOT NULL REFERENCES ${s}.runs (run_id) ON DELETE CASCADE,
    version    integer NOT NULL,
    cause      text NOT NULL,
    created_at text NOT NULL,
    data       text NOT NULL,
    blob_refs  text,
    PRIMARY KEY (run_id, version)
  );
  CREATE TABLE ${s}.blobs (
    sha256       text PRIMARY KEY,
    bytes        bigint NOT NULL,
    content_json text NOT NULL
  );
  CREATE TABLE ${s}.run_blobs (
    run_id text NOT NULL REFERENCES ${s}.runs (run_id) ON DELETE CASCADE,
    sha256 text NOT NULL,
    PRIMARY KEY (run_id, sha256)
  );
  CREATE INDEX run_blobs_by_sha256 ON ${s}.run_blobs (sha256);
  `,
  // 2: DyLAN agent importance scores, summed per (team, task type, agent); they belong to no run.
  (s) => `
  CREATE TABLE ${s}.team_scores (
    team       text NOT NULL,
    task_type  text NOT NULL,
    agent      text NOT NULL,
    importance double precision NOT NULL,
    queries    bigint NOT NULL,
    updated_at text NOT NULL,
    PRIMARY KEY (team, task_type, agent)
  );
  `,
  // 3: the optimised team size per (team, task type): the --k of the latest `weft team optimize`.
  (s) => `
  CREATE TABLE ${s}.team_sizes (
    team       text NOT NULL,
    task_type  text NOT NULL,
    k          bigint NOT NULL,
    updated_at text NOT NULL,
    PRIMARY KEY (team, task_type)
  );
  `,
  // 4: conversations with procedures and their event logs; they belong to no run.
  (s) => `
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
  `,
  // 5: execution traces: written once, whole; the columns are what `listTraces` filters and sorts on.
  (s) => `
  CREATE TABLE ${s}.traces (
    trace_id   text PRIMARY KEY,
    position   bigint GENERATED ALWAYS AS IDENTITY,
    created_at text NOT NULL,
    task_key   text,
    mode       text NOT NULL,
    success    boolean NOT NULL,
    model      text NOT NULL,
    record     text NOT NULL
  );
  CREATE INDEX traces_by_created_at ON ${s}.traces (created_at, position);
  CREATE INDEX traces_by_task_key ON ${s}.traces (task_key, created_at, position);
  `,
  // 6: batches of `weft exec --inputs` (postgres-batch-store.ts): the batch row and its append-only case log.
  (s) => `
  CREATE TABLE ${s}.batches (
    batch_id   text PRIMARY KEY,
    created_at text NOT NULL,
    manifest   text NOT NULL,
    importing  boolean NOT NULL DEFAULT false,
    owner_pid  integer,
    owner_host text,
    last_seq   integer NOT NULL DEFAULT 0
  );
  CREATE TABLE ${s}.batch_records (
    batch_id    text NOT NULL REFERENCES ${s}.batches (batch_id) ON DELETE CASCADE,
    seq         integer NOT NULL,
    type        text NOT NULL,
    case_key    text NOT NULL,
    status      text,
    interrupted boolean NOT NULL,
    latest      boolean NOT NULL,
    data        text NOT NULL,
    PRIMARY KEY (batch_id, seq)
  );
  CREATE INDEX batch_records_by_case ON ${s}.batch_records (batch_id, case_key, latest);
  CREATE INDEX batch_records_latest ON ${s}.batch_records (batch_id, latest, status, seq);
  `,
];

export interface PostgresRunStoreOptions {
  /** The schema that holds Weft's tables; created when absent. Default `weft`. */
  readonly schema?: string;
  /** How long connecting may take, in milliseconds. Default 3000. */
  readonly connectTimeoutMs?: number;
  /** Connections in the pool. Default 10. */
  readonly maxConnections?: number;
  /** The clock for createdAt/updatedAt (tests pass a fixed one). */
  readonly now?: () => Date;
  /** Loads pg; tests pass one that fails, to check the MISSING_DEPENDENCY message. */
  readonly importPg?: PgImporter;
  /** The connections' application_name when the URL sets none (shown in pg_stat_activity). Default `weft`. */
  readonly applicationName?: string;
}

export interface PostgresRunStore extends RunStore, TraceStore, BatchStore {
  /** The server's URL without its password. */
  readonly url: string;
  readonly schema: string;
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

/** What a query can run on: the pool or one connection inside a transaction. */
type Queryable = Pick<PG.PoolClient, 'query'>;

// ---------------------------------------------------------------------------------------------------------------
// URLs and errors

/** Removes the password from a connection URL (user info and a `password` query parameter). */
export { redactUrl as redactPostgresUrl };

/** A Postgres error reported by the server carries a five-character SQLSTATE and a severity. */
function sqlState(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, severity } = error as { code?: unknown; severity?: unknown };
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && typeof severity === 'string' ? code : undefined;
}

/** The text of an error; a connection to `localhost` that fails on every address is an AggregateError without one. */
function reasonOf(error: unknown): string {
  if (error instanceof AggregateError && error.message === '') {
    const inner = error.errors.map((item) => reasonOf(item)).filter((text) => text !== '');
    if (inner.length > 0) return [...new Set(inner)].join('; ');
  }
  if (error instanceof Error) return error.message || String((error as { code?: unknown }).code ?? error.name);
  return String(error);
}

/** Failures where trying again can help: the connection, a deadlock, a serialisation conflict, a busy server. */
function isTransient(error: unknown): boolean {
  const state = sqlState(error);
  if (state === undefined) return !(error instanceof WeftError);
  return state.startsWith('08') || state.startsWith('57P') || ['40001', '40P01', '55P03', '53300'].includes(state);
}

function storeError(error: unknown, action: string, url: RedactedUrl): WeftError {
  if (error instanceof WeftError) return error;
  const reason = scrubSecrets(reasonOf(error), url.secrets);
  if (sqlState(error) === undefined) {
    return new WeftError('STORE', `Cannot ${action}: cannot reach Postgres at ${url.display}: ${reason}`, {
      cause: error,
      retryable: true,
    });
  }
  return new WeftError('STORE', `Cannot ${action}: ${reason} (Postgres at ${url.display})`, {
    cause: error,
    retryable: isTransient(error),
  });
}

function openError(error: unknown, url: RedactedUrl, connectTimeoutMs: number): WeftError {
  if (error instanceof WeftError) return error;
  let reason = scrubSecrets(reasonOf(error), url.secrets);
  if ((error as { code?: unknown }).code === 'ERR_INVALID_URL') {
    return new WeftError(
      'BAD_INPUT',
      `Invalid Postgres URL ${url.display}: ${reason}; expected postgres://user:password@host:port/database`,
      {
        cause: error,
      },
    );
  }
  if (sqlState(error) !== undefined) {
    return new WeftError('STORE', `Cannot open the run store in Postgres at ${url.display}: ${reason}`, {
      cause: error,
      retryable: isTransient(error),
    });
  }
  if (/timeout/i.test(reason)) reason = `no answer within ${connectTimeoutMs} ms (${reason})`;
  return new WeftError('STORE', `Cannot reach Postgres at ${url.display}: ${reason}`, {
    cause: error,
    retryable: true,
  });
}

function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

// ---------------------------------------------------------------------------------------------------------------
// Blobs

/** The distinct blobs of several values, sorted by hash (the order every transaction locks them in). */
function collectBlobs(values: readonly Deflated[]): [string, string][] {
  const all = new Map<string, string>();
  for (const value of values) for (const [sha256, content] of value.blobs) all.set(sha256, content);
  return [...all].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

// ---------------------------------------------------------------------------------------------------------------
// Opening

/** Resolves after `ms` without keeping the process alive. */
function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** `promise`, or a rejection after `ms`; a value that arrives later is handed to `late` (to be cleaned up). */
async function withDeadline<T>(promise: Promise<T>, ms: number, what: string, late: (value: T) => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      promise.then(late, () => undefined);
      reject(new Error(`${what}: timeout after ${ms} ms`));
    }, ms);
    timer.unref();
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** Creates or upgrades the schema, in one transaction under an advisory lock. */
async function migrate(client: PG.PoolClient, schema: string, url: RedactedUrl): Promise<void> {
  const s = quoteIdentifier(schema);
  await client.query('BEGIN');
  try {
    // Another process creating the schema holds the lock for milliseconds; a stuck one must not hang us.
    await client.query("SET LOCAL lock_timeout = '10s'");
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`weft run store ${schema}`]);
    const present = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
    let version = 0;
    if (present.rowCount === 0) {
      await client.query(`CREATE SCHEMA ${s}`);
    } else {
      const tables = await client.query<{ relname: string }>(
        `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'f')`,
        [schema],
      );
      const names = tables.rows.map((row) => row.relname);
      if (names.includes('schema_version')) {
        const row = await client.query<{ version: number }>(`SELECT version FROM ${s}.schema_version`);
        const found = row.rows[0]?.version;
        if (row.rowCount !== 1 || typeof found !== 'number') {
          throw new WeftError(
            'STORE',
            `The Postgres schema "${schema}" has an unreadable schema_version table; it was left untouched (${url.display})`,
          );
        }
        version = found;
      } else if (names.length > 0) {
        throw new WeftError(
          'STORE',
          `The Postgres schema "${schema}" holds tables Weft did not create (${names.slice(0, 5).join(', ')}); ` +
            `it was left untouched. Use an empty schema for the run store (${url.display})`,
        );
      }
    }
    if (version > POSTGRES_SCHEMA_VERSION) {
      throw new WeftError(
        'STORE',
        `The run store uses schema version ${version}, but this Weft understands versions up to ` +
          `${POSTGRES_SCHEMA_VERSION}; upgrade Weft to open it. The schema "${schema}" was left untouched (${url.display})`,
      );
    }
    if (version < POSTGRES_SCHEMA_VERSION) {
      if (version === 0) {
        await client.query(
          `CREATE TABLE ${s}.schema_version (
             single boolean PRIMARY KEY DEFAULT true CHECK (single),
             version integer NOT NULL
           )`,
        );
        await client.query(`INSERT INTO ${s}.schema_version (version) VALUES (0)`);
      }
      for (let next = version; next < POSTGRES_SCHEMA_VERSION; next += 1) {
        await client.query((MIGRATIONS[next] as (s: string) => string)(s));
      }
      await client.query(`UPDATE ${s}.schema_version SET version = $1`, [POSTGRES_SCHEMA_VERSION]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/**
 * Opens the run store on the Postgres server at `url` (`postgres://user:password@host:port/database`), creating
 * its schema when absent. Throws WeftError('STORE') within about `connectTimeoutMs` + 1 s when the server cannot
 * be reached, and for a schema that is newer or not Weft's; WeftError('MISSING_DEPENDENCY') without pg.
 */
export async function openPostgresRunStore(
  url: string,
  options: PostgresRunStoreOptions = {},
): Promise<PostgresRunStore> {
  const redacted = redactUrl(url);
  const schema = options.schema ?? DEFAULT_POSTGRES_SCHEMA;
  if (schema === '' || Buffer.byteLength(schema, 'utf8') > 63 || schema.includes('\u0000')) {
    throw new WeftError('BAD_INPUT', `The Postgres schema name must be 1 to 63 bytes, got ${JSON.stringify(schema)}`);
  }
  const connectTimeoutMs = options.connectTimeoutMs ?? 3000;
  integerOption(connectTimeoutMs, 'connectTimeoutMs', { min: 1 });
  const pg = await loadPg(options.importPg);

  let pool: PG.Pool;
  try {
    pool = new pg.Pool({
      connectionString: url,
      connectionTimeoutMillis: connectTimeoutMs,
      max: options.maxConnections ?? 10,
      keepAlive: true,
      fallback_application_name: options.applicationName ?? 'weft',
    });
  } catch (error) {
    throw new WeftError(
      'BAD_INPUT',
      `Invalid Postgres URL ${redacted.display}: ${scrubSecrets(reasonOf(error), redacted.secrets)}`,
      { cause: error },
    );
  }
  // An idle connection that the server drops emits 'error' on the pool; without a listener it would crash the
  // process. The pool discards that connection and the next call opens a new one (or reports why it cannot).
  pool.on('error', () => undefined);

  let client: PG.PoolClient | undefined;
  try {
    // pg enforces connectTimeoutMs itself; the deadline is a backstop so opening never hangs.
    client = await withDeadline(pool.connect(), connectTimeoutMs + 1000, 'connect', (late) => late.release(true));
    // `query_timeout` per query is read by pg, though @types/pg does not list it.
    await client.query({ text: 'SELECT 1', query_timeout: connectTimeoutMs } as PG.QueryConfig);
  } catch (error) {
    client?.release(true);
    await Promise.race([pool.end().catch(() => undefined), delay(500)]);
    throw openError(error, redacted, connectTimeoutMs);
  }
  try {
    await migrate(client, schema, redacted);
    client.release();
  } catch (error) {
    client.release(true);
    await Promise.race([pool.end().catch(() => undefined), delay(500)]);
    throw openError(error, redacted, connectTimeoutMs);
  }
  return new PostgresStore(pool, redacted, schema, options.now ?? (() => new Date()));
}

// ---------------------------------------------------------------------------------------------------------------
// The store

class PostgresStore extends BatchDelegatingStore implements PostgresRunStore {
  readonly url: string;
  private closed = false;
  private ending: Promise<void> | undefined;
  private readonly sql;

  constructor(
    private readonly pool: PG.Pool,
    private readonly redacted: RedactedUrl,
    readonly schema: string,
    private readonly now: () => Date,
  ) {
    super();
    this.url = redacted.display;
    const s = quoteIdentifier(schema);
    const runColumns = 'run_id, task, model, options, status, created_at, updated_at, owner_pid, owner_host';
    const sessionColumns =
      'session_id, procedure, pdl_path, model, options, status, turns, created_at, updated_at, owner_pid, owner_host';
    this.sql = {
      insertRun: `INSERT INTO ${s}.runs (${runColumns}) VALUES ($1, $2, $3, $4, 'running', $5, $5, $6, $7)`,
      getRun: `SELECT ${runColumns} FROM ${s}.runs WHERE run_id = $1`,
      runExists: `SELECT 1 FROM ${s}.runs WHERE run_id = $1`,
      listRuns: `SELECT ${runColumns} FROM ${s}.runs ORDER BY created_at, position`,
      touchRun: `UPDATE ${s}.runs SET updated_at = $1 WHERE run_id = $2`,
      setStatus: `UPDATE ${s}.runs SET status = $1, updated_at = $2 WHERE run_id = $3`,
      setOwner: `UPDATE ${s}.runs SET owner_pid = $1, owner_host = $2, updated_at = $3 WHERE run_id = $4`,
      // One statement: under READ COMMITTED a concurrent UPDATE of the row re-checks the condition after the
      // other commits, so of several takeovers of the same owner exactly one matches.
      takeOver: `UPDATE ${s}.runs SET owner_pid = $1, owner_host = $2, status = 'running', updated_at = $3
         WHERE run_id = $4 AND owner_pid IS NOT DISTINCT FROM $5::integer AND owner_host IS NOT DISTINCT FROM $6::text`,
      reserveSeq: `UPDATE ${s}.runs SET last_seq = last_seq + $1, updated_at = $2 WHERE run_id = $3 RETURNING last_seq`,
      insertEvents: `INSERT INTO ${s}.events (run_id, seq, type, at, data, blob_refs)
         SELECT $1::text, * FROM unnest($2::integer[], $3::text[], $4::double precision[], $5::text[], $6::text[])`,
      // One statement, so the existence check and the rows come from the same snapshot; a run without (later)
      // events gives one row with a null seq, an unknown run none.
      events: `SELECT e.seq, e.data, e.blob_refs FROM ${s}.runs r
         LEFT JOIN ${s}.events e ON e.run_id = r.run_id AND e.seq > $2::double precision
         WHERE r.run_id = $1 ORDER BY e.seq LIMIT $3::bigint`,
      insertPlan: `INSERT INTO ${s}.plan_versions (run_id, version, cause, created_at, data, blob_refs) VALUES ($1, $2, $3, $4, $5, $6)`,
      plans: `SELECT p.version, p.cause, p.created_at, p.data, p.blob_refs FROM ${s}.runs r
         LEFT JOIN ${s}.plan_versions p ON p.run_id = r.run_id
         WHERE r.run_id = $1 ORDER BY p.version`,
      insertBlobs: `INSERT INTO ${s}.blobs (sha256, bytes, content_json)
         SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[]) ON CONFLICT (sha256) DO NOTHING`,
      insertBlobUses: `INSERT INTO ${s}.run_blobs (run_id, sha256) SELECT $1::text, unnest($2::text[]) ON CONFLICT DO NOTHING`,
      blobs: `SELECT sha256, content_json FROM ${s}.blobs WHERE sha256 = ANY($1::text[])`,
      lockRuns: `SELECT run_id, status, owner_pid, owner_host FROM ${s}.runs WHERE run_id = ANY($1::text[])
         ORDER BY run_id FOR UPDATE`,
      lockBlobs: `LOCK TABLE ${s}.blobs IN SHARE ROW EXCLUSIVE MODE`,
      countEvents: `SELECT count(*)::double precision AS n FROM ${s}.events WHERE run_id = ANY($1::text[])`,
      countPlans: `SELECT count(*)::double precision AS n FROM ${s}.plan_versions WHERE run_id = ANY($1::text[])`,
      blobsOfRuns: `SELECT DISTINCT sha256 FROM ${s}.run_blobs WHERE run_id = ANY($1::text[])`,
      deleteRuns: `DELETE FROM ${s}.runs WHERE run_id = ANY($1::text[])`,
      // Deletes blobs only when no run uses them any more.
      deleteUnusedBlobs: `DELETE FROM ${s}.blobs b WHERE b.sha256 = ANY($1::text[])
         AND NOT EXISTS (SELECT 1 FROM ${s}.run_blobs u WHERE u.sha256 = b.sha256) RETURNING b.bytes::double precision AS bytes`,
      // Accumulates in one statement; rows come sorted by agent, so concurrent saves lock them in one order.
      addTeamScores: `INSERT INTO ${s}.team_scores AS t (team, task_type, agent, importance, queries, updated_at)
         SELECT $1::text, $2::text, a.agent, a.importance, a.queries, $6::text
         FROM unnest($3::text[], $4::double precision[], $5::bigint[]) WITH ORDINALITY AS a (agent, importance, queries, n)
         ORDER BY a.n
         ON CONFLICT (team, task_type, agent) DO UPDATE SET importance = t.importance + excluded.importance,
           queries = t.queries + excluded.queries, updated_at = excluded.updated_at`,
      teamScores: `SELECT agent, importance, queries::double precision AS queries, updated_at FROM ${s}.team_scores
         WHERE team = $1 AND task_type = $2`,
      // The latest save wins.
      setTeamSize: `INSERT INTO ${s}.team_sizes (team, task_type, k, updated_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (team, task_type) DO UPDATE SET k = excluded.k, updated_at = excluded.updated_at`,
      teamSize: `SELECT k::double precision AS k FROM ${s}.team_sizes WHERE team = $1 AND task_type = $2`,
      insertSession: `INSERT INTO ${s}.sessions (${sessionColumns}) VALUES ($1, $2, $3, $4, $5, 'open', 0, $6, $6, $7, $8)`,
      getSession: `SELECT ${sessionColumns} FROM ${s}.sessions WHERE session_id = $1`,
      sessionExists: `SELECT 1 FROM ${s}.sessions WHERE session_id = $1`,
      listSessions: `SELECT ${sessionColumns} FROM ${s}.sessions ORDER BY created_at, position`,
      reserveSessionSeq: `UPDATE ${s}.sessions SET last_seq = last_seq + $1, updated_at = $2 WHERE session_id = $3
         RETURNING last_seq`,
      insertSessionEvents: `INSERT INTO ${s}.session_events (session_id, seq, type, at, data)
         SELECT $1::text, * FROM unnest($2::integer[], $3::text[], $4::double precision[], $5::text[])`,
      // One statement, as events above: an unknown session gives no row, one without (later) events a null seq.
      sessionEvents: `SELECT e.seq, e.data FROM ${s}.sessions x
         LEFT JOIN ${s}.session_events e ON e.session_id = x.session_id AND e.seq > $2::double precision
         WHERE x.session_id = $1 ORDER BY e.seq`,
      setSessionProgress: `UPDATE ${s}.sessions SET status = $1, turns = $2, updated_at = $3 WHERE session_id = $4`,
      // One statement, as takeOver above: of several concurrent takeovers of the same owner exactly one matches.
      takeOverSession: `UPDATE ${s}.sessions SET owner_pid = $1, owner_host = $2, updated_at = $3
         WHERE session_id = $4 AND owner_pid IS NOT DISTINCT FROM $5::integer AND owner_host IS NOT DISTINCT FROM $6::text`,
      releaseSession: `UPDATE ${s}.sessions SET owner_pid = NULL, owner_host = NULL, updated_at = $1
         WHERE session_id = $2 AND owner_pid = $3 AND owner_host = $4`,
      insertTrace: `INSERT INTO ${s}.traces (trace_id, created_at, task_key, mode, success, model, record)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      getTrace: `SELECT trace_id, created_at, record FROM ${s}.traces WHERE trace_id = $1`,
      // NULL parameters switch a filter off, as does a NULL limit.
      listTraces: `SELECT trace_id, created_at, record FROM ${s}.traces
         WHERE ($1::text IS NULL OR task_key = $1::text) AND ($2::boolean IS NULL OR success = $2::boolean)
         ORDER BY created_at DESC, position DESC LIMIT $3::bigint`,
      stats: `SELECT (SELECT count(*) FROM ${s}.runs)::double precision AS runs, (SELECT count(*) FROM ${s}.events)::double precision AS events,
                (SELECT count(*) FROM ${s}.plan_versions)::double precision AS "planVersions",
                (SELECT count(*) FROM ${s}.blobs)::double precision AS blobs,
                (SELECT coalesce(sum(bytes), 0) FROM ${s}.blobs)::double precision AS "blobBytes"`,
    };
  }

  // Batches: postgres-batch-store.ts, on this pool and behind this store's error handling.
  protected openBatchStore(): BatchStore {
    return createPostgresBatchStore({
      pool: this.pool,
      quotedSchema: quoteIdentifier(this.schema),
      where: `Postgres at ${this.url} (schema "${this.schema}")`,
      use: (action, body) => this.use(action, body),
      transaction: (body) => this.transaction(body),
      now: this.now,
    });
  }

  /** Runs `body` with the store's error handling: closed store, Postgres failures → WeftError('STORE'). */
  private async use<T>(action: string, body: () => Promise<T>): Promise<T> {
    if (this.closed)
      throw new WeftError('STORE', `Cannot ${action}: the run store is closed (Postgres at ${this.url})`);
    try {
      return await body();
    } catch (error) {
      throw storeError(error, action, this.redacted);
    }
  }

  /** Runs `body` in one transaction on one connection; rolls back when it throws. */
  private async transaction<T>(body: (client: PG.PoolClient) => Promise<T>, begin = 'BEGIN'): Promise<T> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      await client.query(begin);
      const result = await body(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch((failure: unknown) => {
        // A connection that cannot roll back is not given back to the pool.
        broken = failure instanceof Error ? failure : new Error(String(failure));
      });
      throw error;
    } finally {
      client.release(broken);
    }
  }

  private notFound(runId: string): WeftError {
    return new WeftError(
      'NOT_FOUND',
      `No run with id ${JSON.stringify(runId)} in Postgres at ${this.url} (schema "${this.schema}")`,
    );
  }

  private sessionNotFound(sessionId: string): WeftError {
    return new WeftError(
      'NOT_FOUND',
      `No session with id ${displaySessionId(sessionId)} in Postgres at ${this.url} (schema "${this.schema}")`,
    );
  }

  private async requireSession(sessionId: string): Promise<void> {
    if ((await this.pool.query(this.sql.sessionExists, [sessionId])).rowCount === 0)
      throw this.sessionNotFound(sessionId);
  }

  /** `use` for a call naming a session: an id no session can have is NOT_FOUND without a query. */
  private useSession<T>(action: string, sessionId: string, body: () => Promise<T>): Promise<T> {
    return this.use(`${action} ${displaySessionId(sessionId)}`, () => {
      if (!isSessionId(sessionId)) throw this.sessionNotFound(sessionId);
      return body();
    });
  }

  /** Stores each blob once and records that `runId` uses it (what garbage collection goes by). */
  private async saveBlobs(client: Queryable, runId: string, blobs: readonly [string, string][]): Promise<void> {
    if (blobs.length === 0) return;
    const hashes = blobs.map(([sha256]) => sha256);
    await client.query(this.sql.insertBlobs, [
      hashes,
      blobs.map(([, content]) => Buffer.byteLength(content, 'utf8')),
      blobs.map(([, content]) => JSON.stringify(content)),
    ]);
    await client.query(this.sql.insertBlobUses, [runId, hashes]);
  }

  /** Reads the blobs that `refs` name, in one query. */
  private async readBlobs(
    client: Queryable,
    refLists: readonly { sha256: string }[][],
    what: string,
  ): Promise<Map<string, string>> {
    const wanted = [...new Set(refLists.flatMap((refs) => refs.map((ref) => ref.sha256)))];
    const found = new Map<string, string>();
    if (wanted.length === 0) return found;
    const result = await client.query<{ sha256: string; content_json: string }>(this.sql.blobs, [wanted]);
    for (const row of result.rows) {
      const content = parseJson(row.content_json, `blob ${row.sha256} of ${what}`);
      if (typeof content !== 'string')
        throw new WeftError('STORE', `The run store holds an unreadable blob ${row.sha256}`);
      found.set(row.sha256, content);
    }
    return found;
  }

  createRun(run: NewRun): Promise<void> {
    return this.use(`create run ${run.runId}`, async () => {
      const { runId, options, owner } = prepareRun(run, MAX_INTEGER);
      const now = this.now().toISOString();
      try {
        await this.pool.query(this.sql.insertRun, [
          runId,
          run.task,
          run.model,
          options,
          now,
          owner?.pid ?? null,
          owner?.host ?? null,
        ]);
      } catch (error) {
        if (sqlState(error) === '23505') {
          throw new WeftError(
            'STORE',
            `A run with id ${JSON.stringify(runId)} already exists in Postgres at ${this.url}`,
            { cause: error },
          );
        }
        throw error;
      }
    });
  }

  appendEvents(runId: string, events: readonly EventRecord[]): Promise<void> {
    return this.use(`append events to run ${runId}`, async () => {
      if (events.length === 0) {
        if ((await this.pool.query(this.sql.runExists, [runId])).rowCount === 0) throw this.notFound(runId);
        return;
      }
      // Check and serialise everything before the transaction: a bad event means nothing is written.
      const prepared = prepareEvents(runId, events);
      const blobs = collectBlobs(prepared.map((event) => event.deflated));
      const now = this.now().toISOString();
      await this.transaction(async (client) => {
        const reserved = await client.query<{ last_seq: number }>(this.sql.reserveSeq, [prepared.length, now, runId]);
        const last = reserved.rows[0]?.last_seq;
        if (last === undefined) throw this.notFound(runId);
        await this.saveBlobs(client, runId, blobs);
        const first = last - prepared.length + 1;
        await client.query(this.sql.insertEvents, [
          runId,
          prepared.map((_event, index) => first + index),
          prepared.map((event) => event.type),
          prepared.map((event) => event.at),
          prepared.map((event) => event.deflated.json),
          prepared.map((event) => encodeRefs(event.deflated.refs)),
        ]);
      });
    });
  }

  savePlanVersion(version: Omit<PlanVersion, 'createdAt'>): Promise<void> {
    const { runId } = version;
    return this.use(`save plan version ${version.version} of run ${runId}`, async () => {
      const deflated = preparePlanVersion(version, MAX_INTEGER);
      const now = this.now().toISOString();
      await this.transaction(async (client) => {
        // Touching the run first locks its row, in the same order as appendEvents.
        if ((await client.query(this.sql.touchRun, [now, runId])).rowCount === 0) throw this.notFound(runId);
        await this.saveBlobs(client, runId, collectBlobs([deflated]));
        try {
          await client.query(this.sql.insertPlan, [
            runId,
            version.version,
            version.cause,
            now,
            deflated.json,
            encodeRefs(deflated.refs),
          ]);
        } catch (error) {
          if (sqlState(error) === '23505') {
            throw new WeftError('STORE', `Plan version ${version.version} of run ${runId} already exists`, {
              cause: error,
            });
          }
          throw error;
        }
      });
    });
  }

  setStatus(runId: string, status: StoredRunStatus): Promise<void> {
    return this.use(`set the status of run ${runId}`, async () => {
      checkStatus(status);
      const result = await this.pool.query(this.sql.setStatus, [status, this.now().toISOString(), runId]);
      if (result.rowCount === 0) throw this.notFound(runId);
    });
  }

  setOwner(runId: string, owner: RunOwner): Promise<void> {
    return this.use(`set the owner of run ${runId}`, async () => {
      const checked = checkOwner(owner, `the owner of run ${runId}`, MAX_INTEGER);
      const result = await this.pool.query(this.sql.setOwner, [
        checked.pid,
        checked.host,
        this.now().toISOString(),
        runId,
      ]);
      if (result.rowCount === 0) throw this.notFound(runId);
    });
  }

  takeOverRun(runId: string, owner: RunOwner, previous: RunOwner | undefined): Promise<boolean> {
    return this.use(`take over run ${runId}`, async () => {
      const checked = checkOwner(owner, `the owner of run ${runId}`, MAX_INTEGER);
      const result = await this.pool.query(this.sql.takeOver, [
        checked.pid,
        checked.host,
        this.now().toISOString(),
        runId,
        previous?.pid ?? null,
        previous?.host ?? null,
      ]);
      if (result.rowCount === 1) return true;
      if ((await this.pool.query(this.sql.runExists, [runId])).rowCount === 0) throw this.notFound(runId);
      return false;
    });
  }

  getRun(runId: string): Promise<RunRecord | undefined> {
    return this.use(`read run ${runId}`, async () => {
      const row = (await this.pool.query<RunRow>(this.sql.getRun, [runId])).rows[0];
      return row === undefined ? undefined : runRecordFromRow(row);
    });
  }

  listRuns(): Promise<RunRecord[]> {
    return this.use('list runs', async () =>
      (await this.pool.query<RunRow>(this.sql.listRuns)).rows.map((row) => runRecordFromRow(row)),
    );
  }

  events(runId: string, afterSeq = 0, limit?: number): Promise<StoredEvent[]> {
    return this.use(`read the events of run ${runId}`, () =>
      // One snapshot for the events and their blobs, so a concurrent prune cannot take a blob in between.
      this.transaction(async (client) => {
        // LIMIT NULL is Postgres's "no limit".
        const result = await client.query<DataRow & { seq: number | null }>(this.sql.events, [
          runId,
          afterSeq,
          eventLimit(limit) ?? null,
        ]);
        if (result.rowCount === 0) throw this.notFound(runId);
        const rows = result.rows.filter((row): row is DataRow & { seq: number } => row.seq !== null);
        const refs = rows.map((row) => decodeRefs(row.blob_refs, `event ${row.seq} of run ${runId}`));
        const blobs = await this.readBlobs(client, refs, `run ${runId}`);
        return rows.map((row, index): StoredEvent => {
          const what = `event ${row.seq} of run ${runId}`;
          const event = inflate(row.data, refs[index] ?? [], (sha256) => blobs.get(sha256), what) as EventRecord;
          return { runId, seq: row.seq, event };
        });
      }, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY'),
    );
  }

  planVersions(runId: string): Promise<PlanVersion[]> {
    return this.use(`read the plan versions of run ${runId}`, () =>
      this.transaction(async (client) => {
        // A run without plan versions gives one row with a null version.
        type PlanRowOrNone = Omit<PlanRow, 'version'> & { version: number | null };
        const result = await client.query<PlanRowOrNone>(this.sql.plans, [runId]);
        if (result.rowCount === 0) throw this.notFound(runId);
        const rows = result.rows.filter((row): row is PlanRow => row.version !== null);
        const refs = rows.map((row) => decodeRefs(row.blob_refs, `plan version ${row.version} of run ${runId}`));
        const blobs = await this.readBlobs(client, refs, `run ${runId}`);
        return rows.map((row, index) =>
          planVersionFromRow(runId, row, refs[index] ?? [], (sha256) => blobs.get(sha256)),
        );
      }, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY'),
    );
  }

  stats(): Promise<StoreStats> {
    return this.use('read the store statistics', async () => {
      const row = (await this.pool.query<StoreStats>(this.sql.stats)).rows[0];
      if (row === undefined) throw new WeftError('INTERNAL', 'The statistics query returned no row');
      return {
        runs: row.runs,
        events: row.events,
        planVersions: row.planVersions,
        blobs: row.blobs,
        blobBytes: row.blobBytes,
      };
    });
  }

  deleteRuns(runs: readonly RunDeletion[], options: { readonly dryRun?: boolean } = {}): Promise<DeletedRuns> {
    return this.use(options.dryRun ? 'measure a prune of the run store' : 'prune the run store', async () => {
      const requested: RunDeletion[] = [];
      const seen = new Set<string>();
      for (const deletion of runs) {
        if (seen.has(deletion.runId)) continue;
        seen.add(deletion.runId);
        requested.push(deletion);
      }
      const dryRun = new Error('dry run');
      let outcome: DeletedRuns | undefined;
      try {
        await this.transaction(async (client) => {
          outcome = await this.deleteInTransaction(client, requested);
          if (options.dryRun) throw dryRun;
        });
      } catch (error) {
        if (error !== dryRun) throw error;
      }
      return outcome as DeletedRuns;
    });
  }

  private async deleteInTransaction(client: PG.PoolClient, requested: readonly RunDeletion[]): Promise<DeletedRuns> {
    type LockedRow = { run_id: string; status: string; owner_pid: number | null; owner_host: string | null };
    const locked = await client.query<LockedRow>(this.sql.lockRuns, [requested.map((deletion) => deletion.runId)]);
    const rows = new Map(locked.rows.map((row) => [row.run_id, row]));
    const removed: string[] = [];
    const skipped: string[] = [];
    for (const { runId, deadOwner } of requested) {
      const row = rows.get(runId);
      if (row === undefined || !mayDeleteRun(row, deadOwner)) skipped.push(runId);
      else removed.push(runId);
    }
    if (removed.length === 0) return { removed, skipped, events: 0, planVersions: 0, blobs: 0, blobBytes: 0 };

    // No writer may add a use of a blob between the check below and the commit.
    await client.query(this.sql.lockBlobs);
    const events = (await client.query<{ n: number }>(this.sql.countEvents, [removed])).rows[0]?.n ?? 0;
    const planVersions = (await client.query<{ n: number }>(this.sql.countPlans, [removed])).rows[0]?.n ?? 0;
    const used = (await client.query<{ sha256: string }>(this.sql.blobsOfRuns, [removed])).rows.map(
      (row) => row.sha256,
    );
    // ON DELETE CASCADE takes the events, plan versions and blob uses with the runs.
    await client.query(this.sql.deleteRuns, [removed]);
    let blobs = 0;
    let blobBytes = 0;
    if (used.length > 0) {
      for (const row of (await client.query<{ bytes: number }>(this.sql.deleteUnusedBlobs, [used])).rows) {
        blobs += 1;
        blobBytes += row.bytes;
      }
    }
    return { removed, skipped, events, planVersions, blobs, blobBytes };
  }

  saveTeamScores(update: TeamScoresUpdate): Promise<void> {
    return this.use(`save the scores of team ${JSON.stringify(update?.team)}`, async () => {
      const { team, taskType, scores, k } = prepareTeamScores(update);
      if (scores.length === 0 && k === undefined) return;
      const now = this.now().toISOString();
      const add = async (client: Queryable): Promise<void> => {
        if (scores.length === 0) return;
        await client.query(this.sql.addTeamScores, [
          team,
          taskType,
          scores.map((score) => score.agent),
          scores.map((score) => score.importance),
          scores.map((score) => score.queries),
          now,
        ]);
      };
      // Without a size, one statement is one transaction: every entry is added, or none. With one, the scores
      // and the size are written together (score rows first, then the size row: one lock order for every save).
      if (k === undefined) await add(this.pool);
      else {
        await this.transaction(async (client) => {
          await add(client);
          await client.query(this.sql.setTeamSize, [team, taskType, k, now]);
        });
      }
    });
  }

  teamScores(team: string, taskType: string): Promise<TeamScore[]> {
    return this.use(`read the scores of team ${JSON.stringify(team)}`, async () => {
      checkTeamKey(team, taskType);
      return teamScoresFromRows((await this.pool.query<TeamScoreRow>(this.sql.teamScores, [team, taskType])).rows);
    });
  }

  teamSize(team: string, taskType: string): Promise<number | undefined> {
    return this.use(`read the size of team ${JSON.stringify(team)}`, async () => {
      checkTeamKey(team, taskType);
      return (await this.pool.query<{ k: number }>(this.sql.teamSize, [team, taskType])).rows[0]?.k;
    });
  }

  createSession(session: NewSession): Promise<void> {
    return this.use(`create session ${displaySessionId(session?.sessionId)}`, async () => {
      const prepared = prepareSession(session, MAX_INTEGER);
      const now = this.now().toISOString();
      try {
        await this.pool.query(this.sql.insertSession, [
          prepared.sessionId,
          prepared.procedure,
          prepared.pdlPath,
          prepared.model,
          prepared.options,
          now,
          prepared.owner?.pid ?? null,
          prepared.owner?.host ?? null,
        ]);
      } catch (error) {
        if (sqlState(error) === '23505') {
          throw new WeftError(
            'STORE',
            `A session with id ${JSON.stringify(prepared.sessionId)} already exists in Postgres at ${this.url}`,
            { cause: error },
          );
        }
        throw error;
      }
    });
  }

  appendSessionEvents(sessionId: string, events: readonly EventRecord[]): Promise<void> {
    return this.useSession('append events to session', sessionId, async () => {
      // Checked and serialised before the transaction: a bad event means nothing is written.
      const prepared = prepareEventBatch(events, `session ${sessionId}`, Number.POSITIVE_INFINITY);
      if (prepared.length === 0) return this.requireSession(sessionId);
      const now = this.now().toISOString();
      await this.transaction(async (client) => {
        const reserved = await client.query<{ last_seq: number }>(this.sql.reserveSessionSeq, [
          prepared.length,
          now,
          sessionId,
        ]);
        const last = reserved.rows[0]?.last_seq;
        if (last === undefined) throw this.sessionNotFound(sessionId);
        const first = last - prepared.length + 1;
        await client.query(this.sql.insertSessionEvents, [
          sessionId,
          prepared.map((_event, index) => first + index),
          prepared.map((event) => event.type),
          prepared.map((event) => event.at),
          prepared.map((event) => event.deflated.json),
        ]);
      });
    });
  }

  sessionEvents(sessionId: string, afterSeq = 0): Promise<StoredSessionEvent[]> {
    return this.useSession('read the events of session', sessionId, async () => {
      const result = await this.pool.query<{ seq: number | null; data: string | null }>(this.sql.sessionEvents, [
        sessionId,
        afterSeq,
      ]);
      if (result.rowCount === 0) throw this.sessionNotFound(sessionId);
      return result.rows
        .filter((row): row is { seq: number; data: string } => row.seq !== null)
        .map(
          (row): StoredSessionEvent => ({
            sessionId,
            seq: row.seq,
            event: parseJson(row.data, `event ${row.seq} of session ${sessionId}`) as EventRecord,
          }),
        );
    });
  }

  getSession(sessionId: string): Promise<SessionRecord | undefined> {
    if (!isSessionId(sessionId)) return this.use('read a session', async () => undefined);
    return this.useSession('read session', sessionId, async () => {
      const row = (await this.pool.query<SessionRow>(this.sql.getSession, [sessionId])).rows[0];
      return row === undefined ? undefined : sessionRecordFromRow(row);
    });
  }

  listSessions(): Promise<SessionRecord[]> {
    return this.use('list sessions', async () =>
      (await this.pool.query<SessionRow>(this.sql.listSessions)).rows.map((row) => sessionRecordFromRow(row)),
    );
  }

  setSessionProgress(
    sessionId: string,
    progress: { readonly status: SessionStatus; readonly turns: number },
  ): Promise<void> {
    return this.useSession('record the progress of session', sessionId, async () => {
      const { status, turns } = checkSessionProgress(sessionId, progress, MAX_INTEGER);
      const result = await this.pool.query(this.sql.setSessionProgress, [
        status,
        turns,
        this.now().toISOString(),
        sessionId,
      ]);
      if (result.rowCount === 0) throw this.sessionNotFound(sessionId);
    });
  }

  takeOverSession(sessionId: string, owner: RunOwner, previous: RunOwner | undefined): Promise<boolean> {
    return this.useSession('take over session', sessionId, async () => {
      const checked = checkOwner(owner, `the owner of session ${sessionId}`, MAX_INTEGER);
      const before =
        previous === undefined
          ? undefined
          : checkOwner(previous, `the previous owner of session ${sessionId}`, MAX_INTEGER);
      const result = await this.pool.query(this.sql.takeOverSession, [
        checked.pid,
        checked.host,
        this.now().toISOString(),
        sessionId,
        before?.pid ?? null,
        before?.host ?? null,
      ]);
      if (result.rowCount === 1) return true;
      await this.requireSession(sessionId);
      return false;
    });
  }

  releaseSession(sessionId: string, owner: RunOwner): Promise<void> {
    return this.useSession('release session', sessionId, async () => {
      const checked = checkOwner(owner, `the owner of session ${sessionId}`, MAX_INTEGER);
      const result = await this.pool.query(this.sql.releaseSession, [
        this.now().toISOString(),
        sessionId,
        checked.pid,
        checked.host,
      ]);
      if (result.rowCount === 0) await this.requireSession(sessionId);
    });
  }

  saveTrace(trace: NewTrace): Promise<void> {
    return this.use(`save trace ${displayTraceId(trace?.traceId)}`, async () => {
      const prepared = prepareTrace(trace, MAX_INTEGER);
      try {
        await this.pool.query(this.sql.insertTrace, [
          prepared.traceId,
          this.now().toISOString(),
          prepared.taskKey,
          prepared.mode,
          prepared.success,
          prepared.model,
          prepared.record,
        ]);
      } catch (error) {
        if (sqlState(error) === '23505') {
          throw new WeftError(
            'STORE',
            `A trace with id ${prepared.traceId} already exists in Postgres at ${this.url}`,
            {
              cause: error,
            },
          );
        }
        throw error;
      }
    });
  }

  getTrace(traceId: string): Promise<TraceRecord | undefined> {
    return this.use(`read trace ${displayTraceId(traceId)}`, async () => {
      if (!isTraceId(traceId)) return undefined;
      const row = (await this.pool.query<TraceRow>(this.sql.getTrace, [traceId])).rows[0];
      return row === undefined ? undefined : traceRecordFromRow(row);
    });
  }

  listTraces(filter: TraceFilter = {}): Promise<TraceRecord[]> {
    return this.use('list traces', async () => {
      const limit = checkTraceLimit(filter.limit);
      const result = await this.pool.query<TraceRow>(this.sql.listTraces, [
        filter.taskKey ?? null,
        filter.success ?? null,
        limit ?? null,
      ]);
      return result.rows.map((row) => traceRecordFromRow(row));
    });
  }

  close(): Promise<void> {
    if (this.ending === undefined) {
      this.closed = true;
      this.ending = this.pool.end().catch(() => undefined);
    }
    return this.ending;
  }
}
