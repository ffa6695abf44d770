/** Flag parsing shared by the commands: every bad value is a BAD_INPUT naming the flag. */
import { integerOption, WeftError } from '../internal.js';

/** The engines' integer check (integerOption), on the flag's text, naming the flag and quoting what was typed. */
export function integerFlag(
  name: string,
  value: string | undefined,
  { min = 0, max }: { min?: number; max?: number } = {},
): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  return integerOption(
    trimmed === '' ? Number.NaN : Number(trimmed),
    `--${name}`,
    { min, ...(max !== undefined ? { max } : {}) },
    `"${value}"`,
  );
}

export function numberFlag(
  name: string,
  value: string | undefined,
  {
    min = 0,
    max = Number.POSITIVE_INFINITY,
    positive = false,
  }: { min?: number; max?: number; positive?: boolean } = {},
): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  const parsed = Number(trimmed);
  if (trimmed === '' || !Number.isFinite(parsed) || parsed < min || parsed > max || (positive && parsed <= 0)) {
    const range = positive ? '> 0' : max === Number.POSITIVE_INFINITY ? `>= ${min}` : `between ${min} and ${max}`;
    throw new WeftError('BAD_INPUT', `--${name} expects a number ${range}, got "${value}"`, {
      location: { field: `--${name}` },
    });
  }
  return parsed;
}

export function choiceFlag<T extends string>(
  name: string,
  value: string | undefined,
  choices: readonly T[],
): T | undefined {
  if (value === undefined) return undefined;
  if (!(choices as readonly string[]).includes(value)) {
    throw new WeftError('BAD_INPUT', `--${name} must be one of ${choices.join(', ')}; got "${value}"`, {
      location: { field: `--${name}` },
    });
  }
  return value as T;
}
