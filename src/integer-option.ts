/**
 * The one check for an integer option, whoever reads it: an engine's options (`concurrency`, `sessions`, …), the
 * bounded map, and the CLI's `integerFlag` (which passes the flag's name and the text it was given). One predicate
 * and one message, so `--concurrency 0` and `{ concurrency: 0 }` are rejected alike. A leaf at the top of src/ (it
 * imports only errors.ts), so that the models layer, which imports no other layer, uses it too.
 */
import { WeftError } from './errors.js';

export interface IntegerRange {
  /** Smallest allowed value (default 0). */
  readonly min?: number;
  /** Largest allowed value (default: none). */
  readonly max?: number;
}

/**
 * `value` when it is an integer within the range; otherwise a BAD_INPUT WeftError naming `field`.
 * `shown` is how the bad value is quoted in the message (the CLI shows the text typed; default `String(value)`).
 */
export function integerOption(value: unknown, field: string, range: IntegerRange = {}, shown?: string): number {
  const min = range.min ?? 0;
  const max = range.max ?? Number.POSITIVE_INFINITY;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= max) return value;
  const wanted = max === Number.POSITIVE_INFINITY ? `>= ${min}` : `from ${min} to ${max}`;
  throw new WeftError('BAD_INPUT', `${field} expects an integer ${wanted}, got ${shown ?? String(value)}`, {
    location: { field },
  });
}
