/**
 * The business API's state in SQLite (better-sqlite3): each domain's tables (domains/*.ts), the proof tokens that
 * state-changing calls carry, a request counter per endpoint and a counter of refusals for unmet business
 * preconditions (violations). Seed data and ids are deterministic (`R-0001`, `RF-0001`, a fixed "today"), so
 * traces recorded against it replay and distil the same way every time.
 */
import Database from 'better-sqlite3';

export type Db = Database.Database;

/** The service's idea of today (ISO date): return windows, flight dates and slots count from it, not the clock. */
export const DEFAULT_TODAY = '2026-01-15';
/** Days after delivery during which an order may be returned. */
export const RETURN_WINDOW_DAYS = 30;

/** What a domain gives the store: its tables and how to fill them. */
export interface SeededTables {
  readonly schema: string;
  /** In the order they can be emptied (children first). */
  readonly tables: readonly string[];
  seed(db: Db): void;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS tokens (token TEXT PRIMARY KEY, kind TEXT NOT NULL, subject TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS request_counts (endpoint TEXT PRIMARY KEY, count INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS violation_counts (code TEXT PRIMARY KEY, count INTEGER NOT NULL);
`;

export function openDb(path: string, domains: readonly SeededTables[]): Db {
  const db = new Database(path);
  if (path !== ':memory:') db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.exec(SCHEMA);
  for (const domain of domains) db.exec(domain.schema);
  // Each domain is seeded when its root table is empty: a domain added since the file was made gets its rows, the
  // others keep their state.
  for (const domain of domains) {
    const root = domain.tables[domain.tables.length - 1]!;
    const { n } = db.prepare(`SELECT COUNT(*) AS n FROM ${root}`).get() as { n: number };
    if (n === 0) db.transaction(() => domain.seed(db))();
  }
  return db;
}

/** Back to the seed data, with the tokens gone and the counters at zero. */
export function reseed(db: Db, domains: readonly SeededTables[]): void {
  db.transaction(() => {
    for (const domain of domains) for (const table of domain.tables) db.exec(`DELETE FROM ${table}`);
    for (const table of ['tokens', 'request_counts', 'violation_counts']) db.exec(`DELETE FROM ${table}`);
    for (const domain of domains) domain.seed(db);
  })();
}

/** Counters (requests and violations) back to zero; the data stays. */
export function resetCounts(db: Db): void {
  db.exec('DELETE FROM request_counts; DELETE FROM violation_counts');
}

export function countRequest(db: Db, endpoint: string): void {
  db.prepare(
    'INSERT INTO request_counts (endpoint, count) VALUES (?, 1) ON CONFLICT (endpoint) DO UPDATE SET count = count + 1',
  ).run(endpoint);
}

export function countViolation(db: Db, code: string): void {
  db.prepare(
    'INSERT INTO violation_counts (code, count) VALUES (?, 1) ON CONFLICT (code) DO UPDATE SET count = count + 1',
  ).run(code);
}

export interface ApiStats {
  /** Requests to the service's endpoints (not `/_…`), by `METHOD /pattern`, e.g. `POST /refunds`. */
  readonly byEndpoint: Readonly<Record<string, number>>;
  readonly total: number;
  /**
   * Requests refused because a business precondition was not met: no or a foreign verification token, a refund of
   * an unapproved return, a change without its quote, … (what a PDL precondition guards).
   */
  readonly violations: number;
  /** The same by error code, e.g. `{ NOT_VERIFIED: 2, RETURN_NOT_APPROVED: 1 }`. */
  readonly byViolation: Readonly<Record<string, number>>;
}

export function readStats(db: Db): ApiStats {
  const rows = db.prepare('SELECT endpoint, count FROM request_counts ORDER BY endpoint').all() as {
    endpoint: string;
    count: number;
  }[];
  const refused = db.prepare('SELECT code, count FROM violation_counts ORDER BY code').all() as {
    code: string;
    count: number;
  }[];
  return {
    byEndpoint: Object.fromEntries(rows.map((row) => [row.endpoint, row.count])),
    total: rows.reduce((sum, row) => sum + row.count, 0),
    violations: refused.reduce((sum, row) => sum + row.count, 0),
    byViolation: Object.fromEntries(refused.map((row) => [row.code, row.count])),
  };
}
