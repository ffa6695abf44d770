/**
 * Loads `pg` (node-postgres) on first use. It is an optional dependency: SQLite users never load it, and an
 * install without it fails only when a Postgres store is opened, with the command that fixes it.
 */
import type PG from 'pg';
import { WeftError } from '../errors.js';

/** The parts of the `pg` module the Postgres store uses. */
export type PgModule = Pick<typeof PG, 'Pool'>;

/** Loads the pg module; injectable so tests can simulate its absence. */
export type PgImporter = () => Promise<unknown>;

export const PG_INSTALL_HINT = 'The Postgres store needs the pg package: npm install pg';

// A variable specifier keeps bundlers and TypeScript from treating the optional package as always present.
const PG_PACKAGE = 'pg';
const defaultImporter: PgImporter = () => import(PG_PACKAGE);

let cached: PgModule | undefined;

/** Imports pg (once), or throws WeftError('MISSING_DEPENDENCY') with the install command. */
export async function loadPg(importer?: PgImporter): Promise<PgModule> {
  if (importer === undefined && cached !== undefined) return cached;
  let module: unknown;
  try {
    module = await (importer ?? defaultImporter)();
  } catch (error) {
    throw new WeftError('MISSING_DEPENDENCY', PG_INSTALL_HINT, { cause: error });
  }
  // The ESM build exports Pool by name and as a property of the default export; CommonJS interop only the latter.
  const candidates = [module, (module as { default?: unknown } | null | undefined)?.default];
  const found = candidates.find(
    (candidate): candidate is PgModule =>
      typeof candidate === 'object' &&
      candidate !== null &&
      typeof (candidate as { Pool?: unknown }).Pool === 'function',
  );
  if (found === undefined) {
    throw new WeftError(
      'MISSING_DEPENDENCY',
      `pg loaded but does not export Pool (version 8 is required). ${PG_INSTALL_HINT}`,
    );
  }
  if (importer === undefined) cached = found;
  return found;
}
