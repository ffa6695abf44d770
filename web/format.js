// @ts-check
/**
 * Numbers as people read them, one rule for every page: a measured value (a duration, a cost, a score) keeps a few
 * significant digits, so `2.9336839999998574` shows as `2.93`; whole numbers (counts) stay exact.
 */

/** Significant digits a measured value keeps. */
export const DIGITS = 3;

/**
 * `value` with at most `digits` significant digits, never in exponent notation, trailing zeros dropped; whole
 * numbers as they are (a count is exact), but digits before the point are never cut (`1234.5` → `1235`).
 * Not a finite number: the empty string.
 * @param {number} value
 * @param {number} [digits]
 */
export function formatNumber(value, digits = DIGITS) {
  if (typeof value !== 'number' || !Number.isFinite(value)) return '';
  if (Number.isInteger(value)) return String(value);
  const magnitude = Math.floor(Math.log10(Math.abs(value)));
  // toFixed takes at most 100 fraction digits; a value this small is 0 to a person anyway.
  const decimals = Math.min(100, Math.max(0, digits - 1 - magnitude));
  const text = value.toFixed(decimals);
  const trimmed = text.includes('.') ? text.replace(/\.?0+$/, '') : text;
  return trimmed === '-0' ? '0' : trimmed;
}

/**
 * A duration: milliseconds below a second, seconds below a minute, then minutes and seconds.
 * @param {number} ms
 */
export function duration(ms) {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return '';
  // Rounded first, so 999.7 ms is "1 s", not "1000 ms".
  const rounded = Number(formatNumber(ms));
  if (Math.abs(rounded) < 1000) return `${formatNumber(ms)} ms`;
  if (Math.abs(ms) < 60_000) return `${formatNumber(ms / 1000)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/**
 * US dollars: cents from a dollar up, a few significant digits below (a model call costs fractions of a cent).
 * @param {number} usd
 */
export function dollars(usd) {
  if (typeof usd !== 'number' || !Number.isFinite(usd)) return '';
  if (Math.abs(usd) >= 1) return `$${usd.toFixed(2)}`;
  return `$${formatNumber(usd)}`;
}
