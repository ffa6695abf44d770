import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matchNodes } from '../../src/eval/match-nodes.js';

/** Every one-to-one partial matching's best total, by exhaustive search (small sizes only). */
function bruteForceBest(matrix: number[][], beta: number): number {
  const rows = matrix.length;
  const columns = matrix[0]?.length ?? 0;
  const used = new Array<boolean>(columns).fill(false);
  const visit = (row: number): number => {
    if (row === rows) return 0;
    let best = visit(row + 1);
    for (let column = 0; column < columns; column++) {
      const value = matrix[row]?.[column] ?? 0;
      if (used[column] || value < beta) continue;
      used[column] = true;
      best = Math.max(best, value + visit(row + 1));
      used[column] = false;
    }
    return best;
  };
  return visit(0);
}

const total = (matrix: number[][], pairs: readonly (readonly [number, number])[]) =>
  pairs.reduce((sum, [row, column]) => sum + (matrix[row]?.[column] ?? 0), 0);

describe('matchNodes', () => {
  it('finds the maximum-weight matching where greedy would not', () => {
    // Greedy takes 0.9 and leaves row 1 unmatched (0.9); the optimum pairs crosswise (0.8 + 0.85).
    const matrix = [
      [0.9, 0.8],
      [0.85, 0],
    ];
    expect(matchNodes(matrix, 2, 2, 0.6)).toEqual([
      [0, 1],
      [1, 0],
    ]);
  });

  it('never pairs below β', () => {
    expect(
      matchNodes(
        [
          [0.59, 0.2],
          [0.1, 0.7],
        ],
        2,
        2,
        0.6,
      ),
    ).toEqual([[1, 1]]);
    expect(matchNodes([[0.4]], 1, 1, 0.6)).toEqual([]);
  });

  it('handles rectangular matrices both ways and empty sides', () => {
    expect(matchNodes([[0.7, 0.9, 0.65]], 1, 3, 0.6)).toEqual([[0, 1]]);
    expect(matchNodes([[0.7], [0.9], [0.65]], 3, 1, 0.6)).toEqual([[1, 0]]);
    expect(matchNodes([], 0, 3, 0.6)).toEqual([]);
  });

  it('breaks ties between equal texts by keeping order', () => {
    // Gold and prediction both say x, y, x: the two x's pair first-with-first, never crosswise.
    const texts = ['x', 'y', 'x'];
    const matrix = texts.map((a) => texts.map((b) => (a === b ? 1 : 0)));
    expect(matchNodes(matrix, 3, 3, 0.6)).toEqual([
      [0, 0],
      [1, 1],
      [2, 2],
    ]);
    // Shifted duplicates: gold x at 0 and 3, prediction x at 1 and 2.
    const shifted = [
      [0, 1, 1],
      [0, 0, 0],
      [0, 0, 0],
      [0, 1, 1],
    ];
    expect(matchNodes(shifted, 4, 3, 0.6)).toEqual([
      [0, 1],
      [3, 2],
    ]);
  });

  it('a tie-break never outweighs a real similarity difference', () => {
    // Order-preserving would pair (0,0),(1,1) for 0.7 + 0.7; crosswise gives 0.7001 + 0.7 and must win.
    const matrix = [
      [0.7, 0.7001],
      [0.7, 0.7],
    ];
    expect(matchNodes(matrix, 2, 2, 0.6)).toEqual([
      [0, 1],
      [1, 0],
    ]);
  });

  it('always reaches the brute-force optimum (property)', () => {
    const cell = fc.oneof(fc.constant(0), fc.constant(1), fc.double({ min: 0, max: 1, noNaN: true }));
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 5 }),
        fc.array(cell, { minLength: 25, maxLength: 25 }),
        (rows, columns, cells) => {
          const matrix = Array.from({ length: rows }, (_, row) =>
            Array.from({ length: columns }, (_, column) => cells[row * 5 + column] ?? 0),
          );
          const pairs = matchNodes(matrix, rows, columns, 0.6);
          expect(new Set(pairs.map(([row]) => row)).size).toBe(pairs.length);
          expect(new Set(pairs.map(([, column]) => column)).size).toBe(pairs.length);
          expect(total(matrix, pairs)).toBeCloseTo(bruteForceBest(matrix, 0.6), 5);
        },
      ),
      { numRuns: 400 },
    );
  });
});
