/**
 * Whether two JSON values are equal as JSON: key order does not matter, an undefined property is an absent one, and
 * what JSONata adds to its results (a `sequence` flag on arrays, a null prototype) does not count. How a case's
 * output is compared with its expected one (the suite, `weft exec --inputs`) and an answer with the expected one
 * (`weft solve`, the baselines).
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') {
    return a === undefined || b === undefined ? (a ?? null) === (b ?? null) : false;
  }
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, index) => sameJson(item, other[index]));
  }
  const left = Object.entries(a as Record<string, unknown>).filter(([, value]) => value !== undefined);
  const right = b as Record<string, unknown>;
  const rightKeys = Object.keys(right).filter((key) => right[key] !== undefined);
  return (
    left.length === rightKeys.length &&
    left.every(([key, value]) => Object.hasOwn(right, key) && sameJson(value, right[key]))
  );
}
