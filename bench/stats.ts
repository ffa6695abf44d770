/** Summary statistics for benchmark samples. Pure. */

export interface Summary {
  readonly count: number;
  readonly mean: number;
  readonly p50: number;
  readonly p95: number;
  readonly max: number;
}

/** Nearest-rank percentile: the smallest sample with at least `fraction` of the samples at or below it. */
export function percentile(samples: readonly number[], fraction: number): number {
  if (samples.length === 0) throw new RangeError('percentile() needs at least one sample');
  if (!(fraction >= 0 && fraction <= 1)) throw new RangeError(`Expected a fraction in [0, 1], got ${fraction}`);
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil(fraction * sorted.length));
  return sorted[rank - 1]!;
}

export function mean(samples: readonly number[]): number {
  if (samples.length === 0) throw new RangeError('mean() needs at least one sample');
  return samples.reduce((sum, sample) => sum + sample, 0) / samples.length;
}

export function summarize(samples: readonly number[]): Summary {
  return {
    count: samples.length,
    mean: mean(samples),
    p50: percentile(samples, 0.5),
    p95: percentile(samples, 0.95),
    max: Math.max(...samples),
  };
}
