/**
 * Cosine of dense vectors, done as a dot product of unit vectors so that each vector is normalised once, not
 * once per pair.
 */

/** The vector scaled to length 1, or undefined for a zero vector (whose cosine with anything is 0). */
export function unitVector(vector: readonly number[]): Float64Array | undefined {
  let sum = 0;
  for (const value of vector) sum += value * value;
  if (!(sum > 0) || !Number.isFinite(sum)) return undefined;
  const norm = Math.sqrt(sum);
  const unit = new Float64Array(vector.length);
  for (let index = 0; index < vector.length; index++) unit[index] = (vector[index] ?? 0) / norm;
  return unit;
}

/**
 * The cosine of two unit vectors (from `unitVector`), clamped to [-1, 1] against rounding; 0 when either is a
 * zero vector (undefined) or their dimensions differ.
 */
export function unitCosine(a: Float64Array | undefined, b: Float64Array | undefined): number {
  if (!a || !b || a.length !== b.length) return 0;
  let dot = 0;
  for (let index = 0; index < a.length; index++) dot += (a[index] ?? 0) * (b[index] ?? 0);
  return Math.max(-1, Math.min(1, dot));
}

/** The cosine of two vectors of any length; 0 when either is zero. */
export function cosine(a: readonly number[], b: readonly number[]): number {
  return unitCosine(unitVector(a), unitVector(b));
}
