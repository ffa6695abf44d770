/**
 * Optional benchmark data for tests and benches: files too large (or too foreign) to sit in a clone, found through
 * an environment variable. Without the variable, a conventional folder beside the repository is used only if it
 * exists (this project's own workspace keeps the data there); otherwise the caller skips and names the variable.
 */
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export interface OptionalData {
  /** The environment variable that names the data. */
  readonly variable: string;
  /** The data's path, or undefined when it is not at hand. */
  readonly path: string | undefined;
  /** Why the data is not at hand (names the variable), or undefined when it is. */
  readonly missing: string | undefined;
}

/**
 * Where optional data `what` is: `$variable` when set (it must exist: a wrong path is a mistake, not a skip), else
 * `fallback` (segments from the repository's parent folder) when it exists.
 */
export function optionalData(variable: string, what: string, fallback: readonly string[]): OptionalData {
  const named = process.env[variable];
  if (named !== undefined && named !== '') {
    const path = resolve(named);
    if (!existsSync(path)) throw new Error(`${variable} names ${path}, which does not exist (${what})`);
    return { variable, path, missing: undefined };
  }
  const conventional = resolve(REPO, '..', ...fallback);
  if (existsSync(conventional)) return { variable, path: conventional, missing: undefined };
  return { variable, path: undefined, missing: `${what} is optional benchmark data: set ${variable} to use it` };
}
