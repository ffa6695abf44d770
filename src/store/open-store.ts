/**
 * Choosing and opening the run store, and finding Weft's home folder.
 *
 * Store spec (`--store`, later also config): absent → SQLite at `<home>/weft.db`; `sqlite:<path>` → SQLite at
 * that path; `postgres://…` / `postgresql://…` → Postgres (not yet: issue 3).
 */
import { resolve } from 'node:path';
import { WeftError } from '../errors.js';
import { databasePath } from './run-paths.js';
import type { RunStore } from './run-store.js';
import { openSqliteRunStore } from './sqlite-run-store.js';

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
  const spec = options.store;
  if (spec === undefined || spec === '') return openSqliteRunStore(databasePath(options.home));
  if (spec.startsWith('sqlite:')) {
    const path = spec.slice('sqlite:'.length);
    if (path === '') throw new WeftError('BAD_INPUT', 'Store spec "sqlite:" needs a file path, e.g. sqlite:./runs.db');
    return openSqliteRunStore(path);
  }
  if (isPostgresUrl(spec)) {
    // TODO(issue 3): open the Postgres store here; it must pass test/store/describe-run-store.ts.
    throw new WeftError('BAD_INPUT', 'Postgres store arrives with issue 3');
  }
  throw new WeftError(
    'BAD_INPUT',
    `Unknown store ${JSON.stringify(spec)}: expected sqlite:<path> or a postgres:// URL (or nothing, for <home>/weft.db)`,
  );
}

export interface ResolveHomeOptions {
  /** The `--home` flag, if given. */
  readonly flag?: string;
  /** The environment to read WEFT_HOME from. Default process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Default process.cwd(). */
  readonly cwd?: string;
}

/** `--home`, else WEFT_HOME (when non-empty), else `<cwd>/.weft`; always an absolute path. */
export function resolveHome(options: ResolveHomeOptions = {}): string {
  const cwd = options.cwd ?? process.cwd();
  if (options.flag !== undefined) {
    if (options.flag.trim() === '') throw new WeftError('BAD_INPUT', '--home needs a folder path', { location: { field: '--home' } });
    return resolve(cwd, options.flag);
  }
  const fromEnv = (options.env ?? process.env)['WEFT_HOME'];
  if (fromEnv !== undefined && fromEnv.trim() !== '') return resolve(cwd, fromEnv);
  return resolve(cwd, '.weft');
}
