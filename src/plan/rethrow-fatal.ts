import { isAbortError, isWeftError } from '../errors.js';

/**
 * Candidates are generated together and one bad answer must not sink the others, but a refused budget or an
 * abort is not a bad answer: it ends the whole step, so it is rethrown instead of folded into "unusable".
 */
export function rethrowFatal(settled: readonly PromiseSettledResult<unknown>[]): void {
  for (const outcome of settled) {
    if (outcome.status !== 'rejected') continue;
    const error: unknown = outcome.reason;
    if (isAbortError(error) || (isWeftError(error) && error.code === 'BUDGET')) throw error;
  }
}
