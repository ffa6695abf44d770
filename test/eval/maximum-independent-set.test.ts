import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { longestIncreasingSubsequence } from '../../src/eval/longest-increasing-subsequence.js';
import { maximumIndependentSet } from '../../src/eval/maximum-independent-set.js';

function graph(count: number, edges: readonly (readonly [number, number])[]): boolean[][] {
  const matrix = Array.from({ length: count }, () => new Array<boolean>(count).fill(false));
  for (const [a, b] of edges) {
    matrix[a]![b] = true;
    matrix[b]![a] = true;
  }
  return matrix;
}

function bruteForce(matrix: boolean[][]): number {
  const count = matrix.length;
  let best = 0;
  for (let mask = 0; mask < 1 << count; mask++) {
    let ok = true;
    let size = 0;
    for (let a = 0; a < count && ok; a++) {
      if (!(mask & (1 << a))) continue;
      size++;
      for (let b = a + 1; b < count; b++) if (mask & (1 << b) && matrix[a]?.[b]) ok = false;
    }
    if (ok) best = Math.max(best, size);
  }
  return best;
}

function isIndependent(matrix: boolean[][], vertices: readonly number[]): boolean {
  return vertices.every((a) => vertices.every((b) => a === b || !matrix[a]?.[b]));
}

describe('maximumIndependentSet', () => {
  it('solves small cases exactly', () => {
    expect(maximumIndependentSet([]).vertices).toEqual([]);
    expect(maximumIndependentSet(graph(3, [])).vertices).toEqual([0, 1, 2]);
    // A 5-cycle has 2, a 6-cycle 3, a triangle 1.
    expect(
      maximumIndependentSet(
        graph(5, [
          [0, 1],
          [1, 2],
          [2, 3],
          [3, 4],
          [4, 0],
        ]),
      ).vertices,
    ).toHaveLength(2);
    expect(
      maximumIndependentSet(
        graph(6, [
          [0, 1],
          [1, 2],
          [2, 3],
          [3, 4],
          [4, 5],
          [5, 0],
        ]),
      ).vertices,
    ).toHaveLength(3);
    expect(
      maximumIndependentSet(
        graph(3, [
          [0, 1],
          [1, 2],
          [2, 0],
        ]),
      ).vertices,
    ).toHaveLength(1);
    // A star: the leaves, not the centre.
    expect(
      maximumIndependentSet(
        graph(5, [
          [0, 1],
          [0, 2],
          [0, 3],
          [0, 4],
        ]),
      ).vertices,
    ).toEqual([1, 2, 3, 4]);
  });

  it('matches brute force on random graphs up to 14 vertices (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 14 }),
        fc.array(fc.tuple(fc.nat(13), fc.nat(13)), { maxLength: 60 }),
        (count, pairs) => {
          const matrix = graph(
            count,
            pairs.filter(([a, b]) => a < count && b < count && a !== b),
          );
          const result = maximumIndependentSet(matrix);
          expect(result.exact).toBe(true);
          expect(isIndependent(matrix, result.vertices)).toBe(true);
          expect(result.vertices.length).toBe(bruteForce(matrix));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('is exact on dense 30-vertex graphs', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const edges: [number, number][] = [];
    for (let a = 0; a < 30; a++) for (let b = a + 1; b < 30; b++) if (random() < 0.3) edges.push([a, b]);
    // Its speed is the worfeval bench's to measure; an exponential search would time the test out.
    const result = maximumIndependentSet(graph(30, edges));
    expect(result.exact).toBe(true);
    expect(isIndependent(graph(30, edges), result.vertices)).toBe(true);
  });

  it('stops at the time limit with the best set so far, reported as not exact', () => {
    let clock = 0;
    let seed = 11;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const edges: [number, number][] = [];
    for (let a = 0; a < 150; a++) for (let b = a + 1; b < 150; b++) if (random() < 0.1) edges.push([a, b]);
    const matrix = graph(150, edges);
    const result = maximumIndependentSet(matrix, { timeLimitMs: 10, now: () => (clock += 1) });
    expect(result.exact).toBe(false);
    expect(result.vertices.length).toBeGreaterThan(0);
    expect(isIndependent(matrix, result.vertices)).toBe(true);
  });
});

describe('longestIncreasingSubsequence', () => {
  it('is strict and handles the edge cases', () => {
    expect(longestIncreasingSubsequence([])).toBe(0);
    expect(longestIncreasingSubsequence([3, 1, 2])).toBe(2);
    expect(longestIncreasingSubsequence([1, 1, 1])).toBe(1);
    expect(longestIncreasingSubsequence([0, 8, 4, 12, 2, 10, 6, 14, 1, 9])).toBe(4);
  });
});
