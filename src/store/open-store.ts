/**
 * Choosing and opening the run store, and finding Weft's home folder.
 *
 * Store spec (`--store`, WEFT_STORE or the config's `store`; see storeSpecFrom): absent → SQLite at
 * `<home>/weft.db`; `sqlite:<path>` → SQLite at that path; `postgres://…` / `postgresql://…` → Postgres (the
 * optional `pg` package, loaded only then).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { isWeftError, WeftError } from '../errors.js';
import { databasePath } from './run-paths.js';
import type { RunStore } from './run-store.js';
import { redactUrl as redactPostgresUrl } from '../text/redact-url.js';

// The stores (and better-sqlite3 or pg under them) load when a store is opened, not when Weft is imported.
const sqliteStore = () => import('./sqlite-run-store.js');

export interface OpenRunStoreOptions {
  /** Weft's home folder (see resolveHome). */
  readonly home: string;
  /** Which store to use; absent means the SQLite file in `home`. */
  readonly store?: string;
}

export function isPostgresUrl(spec: string): boolean {
  return /^postgres(ql)?:\/\//i.test(spec);
}

export async function openRunStore(options: OpenRunStoreOptions): Promise<RunStore> {
  const sqlitePath = sqlitePathOf(options);
  if (sqlitePath !== undefined) return withHome((await sqliteStore()).openSqliteRunStore(sqlitePath), options.home);
  const spec = options.store ?? '';
  if (isPostgresUrl(spec)) {
    const { url, schema } = splitSchemaParameter(spec);
    const { openPostgresRunStore } = await import('./postgres-run-store.js');
    return withHome(await openPostgresRunStore(url, schema !== undefined ? { schema } : {}), options.home);
  }
  throw new WeftError(
    'BAD_INPUT',
    `Unknown store ${JSON.stringify(redactPostgresUrl(spec).display)}: expected sqlite:<path> or a postgres:// URL (or nothing, for <home>/weft.db)`,
  );
}

/** The store, knowing the home it was opened on: a run started on it puts its folder there (run/run-home.ts). */
function withHome(store: RunStore, home: string): RunStore {
  return Object.assign(store, { home: resolve(home) });
}

/**
 * For commands that only read (`weft show`, `weft runs`): the store, or undefined when there is none yet (no
 * SQLite file, or an empty one) — reading never creates a store. An SQLite file that exists is opened as for
 * writing: on a database of the current schema that writes nothing, whereas a read-only SQLite connection to a
 * WAL database would leave -wal and -shm files behind. Postgres is opened as usual.
 */
export async function openExistingRunStore(options: OpenRunStoreOptions): Promise<RunStore | undefined> {
  const sqlitePath = sqlitePathOf(options);
  if (sqlitePath === undefined) return openRunStore(options);
  // No file, no store: known without loading SQLite.
  if (sqlitePath !== ':memory:' && !existsSync(resolve(sqlitePath))) return undefined;
  const { openSqliteRunStore } = await sqliteStore();
  try {
    return withHome(openSqliteRunStore(sqlitePath, { mustExist: true }), options.home);
  } catch (error) {
    if (isWeftError(error) && error.code === 'NOT_FOUND') return undefined;
    throw error;
  }
}

/** Where the store is, for messages: the SQLite file's absolute path, or the Postgres URL without its password. */
export function describeStore(options: OpenRunStoreOptions): string {
  const sqlitePath = sqlitePathOf(options);
  return sqlitePath === undefined ? redactPostgresUrl(options.store ?? '').display : resolve(sqlitePath);
}

/** The SQLite file a spec names, or undefined for any other spec. */
function sqlitePathOf(options: OpenRunStoreOptions): string | undefined {
  const spec = options.store;
  if (spec === undefined || spec === '') return databasePath(options.home);
  if (!spec.startsWith('sqlite:')) return undefined;
  const path = spec.slice('sqlite:'.length);
  if (path === '') throw new WeftError('BAD_INPUT', 'Store spec "sqlite:" needs a file path, e.g. sqlite:./runs.db');
  return path;
}

export interface StoreSpecSources {
  /** The `--store` flag, if given. */
  readonly flag?: string;
  /** The config file's `store`, if set. */
  readonly config?: string;
  /** The environment to read WEFT_STORE from. Default process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/**
 * Which store to open: `--store`, else WEFT_STORE (when non-empty), else the config's `store`; undefined means
 * the default SQLite file. Checking the spec itself is openRunStore's job.
 */
export function storeSpecFrom(sources: StoreSpecSources = {}): string | undefined {
  if (sources.flag !== undefined) {
    if (sources.flag.trim() === '') {
      throw new WeftError('BAD_INPUT', '--store needs sqlite:<path> or a postgres:// URL', {
        location: { field: '--store' },
      });
    }
    return sources.flag.trim();
  }
  const fromEnv = (sources.env ?? process.env)['WEFT_STORE'];
  if (fromEnv !== undefined && fromEnv.trim() !== '') return fromEnv.trim();
  if (sources.config !== undefined && sources.config.trim() !== '') return sources.config.trim();
  return undefined;
}

export interface ResolveHomeOptions {
  /** The `--home` flag, if given. */
  readonly flag?: string;
  /** The environment to read WEFT_HOME from. Default process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The folder a relative home resolves against (the CLI passes its working directory). */
  readonly cwd: string;
}

/** `--home`, else WEFT_HOME (when non-empty), else `<cwd>/.weft`; always an absolute path. */
export function resolveHome(options: ResolveHomeOptions): string {
  const { cwd } = options;
  if (options.flag !== undefined) {
    if (options.flag.trim() === '')
      throw new WeftError('BAD_INPUT', '--home needs a folder path', { location: { field: '--home' } });
    return resolve(cwd, options.flag);
  }
  const fromEnv = (options.env ?? process.env)['WEFT_HOME'];
  if (fromEnv !== undefined && fromEnv.trim() !== '') return resolve(cwd, fromEnv);
  return resolve(cwd, '.weft');
}

/**
 * `?schema=name` on a Postgres URL picks the schema Weft keeps its tables in (default `weft`), so several Weft
 * homes can share one database. The parameter is Weft's, so it is taken off before the URL reaches the driver.
 */
export function splitSchemaParameter(spec: string): { url: string; schema?: string } {
  let parsed: URL;
  try {
    parsed = new URL(spec);
  } catch {
    return { url: spec }; // the store reports a malformed URL itself, without repeating a password
  }
  const schema = parsed.searchParams.get('schema');
  if (schema === null) return { url: spec };
  parsed.searchParams.delete('schema');
  return { url: parsed.toString(), schema };
}
