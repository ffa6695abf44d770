/**
 * One state of the business API per caller scope: Weft's http tools send the run or chat session they call for in
 * the `Weft-Scope` header, and each scope gets its own copy of the seed data on first use. A demo run twice, or
 * two demos one after the other, therefore each find the shop as seeded (return `R-0001`, the same tokens) and
 * give the same result, while one run's calls still see each other's effects. Requests without the header (curl,
 * `weft tools call`) share the default state.
 *
 * Bounded: the most recent `MAX_SCOPES` scopes are kept open; an older one is closed (in memory: forgotten, so it
 * starts from the seed again; with a file: reopened from its file when it comes back).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ApiError } from './http-kit.js';
import { type Db, openDb, type SeededTables } from './store.js';

/** The header Weft's http tools send (lower case, as node:http gives request headers). */
export const SCOPE_HEADER = 'weft-scope';
/** Scopes kept open at once. */
export const MAX_SCOPES = 256;
const MAX_SCOPE_CHARS = 200;

export class ScopedStates {
  private readonly open = new Map<string, Db>();

  /**
   * @param dbPath the default state's SQLite file, or `:memory:`; scoped states of a file go to `<file>.scopes/`.
   * @param shared every caller uses the default state: the header is ignored.
   */
  constructor(
    private readonly defaultDb: Db,
    private readonly dbPath: string,
    private readonly domains: readonly SeededTables[],
    private readonly shared: boolean,
  ) {}

  /** The state for a request's `Weft-Scope` header value (400 BAD_SCOPE for one that cannot be a scope). */
  for(header: string | string[] | undefined): Db {
    if (this.shared || header === undefined || header === '') return this.defaultDb;
    const scope = Array.isArray(header) ? header[0]! : header;
    if (scope.length > MAX_SCOPE_CHARS || !/^[\x21-\x7e]+$/.test(scope)) {
      throw new ApiError(
        400,
        'BAD_SCOPE',
        `the ${SCOPE_HEADER} header must be 1-${MAX_SCOPE_CHARS} printable characters`,
      );
    }
    let db = this.open.get(scope);
    if (db) {
      // Most recently used last, so that the oldest is the first one closed.
      this.open.delete(scope);
    } else {
      db = openDb(this.fileOf(scope), this.domains);
      if (this.open.size >= MAX_SCOPES) this.closeOldest();
    }
    this.open.set(scope, db);
    return db;
  }

  /** Every scope back to the seed: closed and forgotten, with their files for a file-backed API. */
  reset(): void {
    this.closeAll();
    if (this.dbPath !== ':memory:') rmSync(this.folder(), { recursive: true, force: true });
  }

  closeAll(): void {
    for (const db of this.open.values()) db.close();
    this.open.clear();
  }

  private closeOldest(): void {
    const [oldest] = this.open.keys();
    if (oldest === undefined) return;
    this.open.get(oldest)!.close();
    this.open.delete(oldest);
  }

  private fileOf(scope: string): string {
    if (this.dbPath === ':memory:') return ':memory:';
    const folder = this.folder();
    mkdirSync(folder, { recursive: true });
    // Hashed: a scope is the caller's text, never a path.
    return join(folder, `${createHash('sha256').update(scope).digest('hex').slice(0, 32)}.db`);
  }

  private folder(): string {
    return `${this.dbPath}.scopes`;
  }
}
