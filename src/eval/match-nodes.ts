/**
 * Step 2 of WorfEval (docs/algorithms.md#node-matching): a maximum-weight one-to-one matching between gold and
 * predicted nodes on the similarity matrix thresholded at β. Solved exactly with the Hungarian algorithm, never
 * greedily.
 *
 * Equal-weight matchings are common: 45 alfworld records repeat a step such as "go to fridge". Among matchings
 * of equal total similarity the one with the least positional displacement Σ|i − j| wins. On a line that is the
 * order-preserving matching, so the k-th "go to fridge" of the gold pairs with the k-th of the prediction, and
 * gold scored against itself is 1.
 */

/** `[goldIndex, predictedIndex]`, 0-based, sorted by gold index. */
export type NodePair = readonly [gold: number, predicted: number];

/** Similarities are compared at this resolution, so float noise below it never decides a match. */
const RESOLUTION = 1e6;

export function matchNodes(
  similarity: readonly (readonly number[])[],
  goldCount: number,
  predictedCount: number,
  beta: number,
): NodePair[] {
  if (goldCount === 0 || predictedCount === 0) return [];
  const span = Math.max(goldCount, predictedCount);
  const pairs = Math.min(goldCount, predictedCount);
  // Weight = quantised similarity · M + tie-break, with M above any total of tie-breaks: the similarity total
  // decides and the displacement only orders equal totals. Everything stays an exact integer in a double.
  const multiplier = pairs * span + 1;
  const resolution = Math.max(
    1,
    Math.min(RESOLUTION, Math.floor(Number.MAX_SAFE_INTEGER / (4 * pairs * (multiplier + 1) * span))),
  );
  const weight = (gold: number, predicted: number): number => {
    const value = similarity[gold]?.[predicted] ?? 0;
    if (!(value >= beta) || value <= 0) return 0;
    const quantised = Math.round(Math.min(value, 1) * resolution);
    return quantised === 0 ? 0 : quantised * multiplier + (span - Math.abs(gold - predicted));
  };
  // The assignment solver wants rows ≤ columns; transpose when the prediction is shorter.
  const transposed = goldCount > predictedCount;
  const rows = transposed ? predictedCount : goldCount;
  const columns = transposed ? goldCount : predictedCount;
  const cost: Float64Array[] = [];
  for (let row = 0; row < rows; row++) {
    const line = new Float64Array(columns);
    for (let column = 0; column < columns; column++)
      line[column] = -(transposed ? weight(column, row) : weight(row, column));
    cost.push(line);
  }
  const columnOfRow = assignMinimumCost(cost, rows, columns);
  const result: [number, number][] = [];
  columnOfRow.forEach((column, row) => {
    const [gold, predicted] = transposed ? [column, row] : [row, column];
    if (weight(gold, predicted) > 0) result.push([gold, predicted]);
  });
  return result.sort((a, b) => a[0] - b[0]);
}

/**
 * The Hungarian algorithm with potentials, O(rows² · columns), rows ≤ columns: assigns every row a distinct
 * column with the least total cost. Returns the column of each row.
 */
function assignMinimumCost(cost: readonly Float64Array[], rows: number, columns: number): number[] {
  // 1-based internally, with column 0 as the virtual start, as in the classic formulation.
  const rowPotential = new Float64Array(rows + 1);
  const columnPotential = new Float64Array(columns + 1);
  const rowOfColumn = new Int32Array(columns + 1);
  const previous = new Int32Array(columns + 1);
  const slack = new Float64Array(columns + 1);
  const visited = new Uint8Array(columns + 1);
  for (let row = 1; row <= rows; row++) {
    rowOfColumn[0] = row;
    let column = 0;
    slack.fill(Infinity);
    visited.fill(0);
    do {
      visited[column] = 1;
      const current = rowOfColumn[column] ?? 0;
      const line = cost[current - 1];
      let delta = Infinity;
      let next = 0;
      for (let candidate = 1; candidate <= columns; candidate++) {
        if (visited[candidate]) continue;
        const reduced = (line?.[candidate - 1] ?? 0) - (rowPotential[current] ?? 0) - (columnPotential[candidate] ?? 0);
        if (reduced < (slack[candidate] ?? Infinity)) {
          slack[candidate] = reduced;
          previous[candidate] = column;
        }
        if ((slack[candidate] ?? Infinity) < delta) {
          delta = slack[candidate] ?? Infinity;
          next = candidate;
        }
      }
      for (let candidate = 0; candidate <= columns; candidate++) {
        if (visited[candidate]) {
          const assigned = rowOfColumn[candidate] ?? 0;
          rowPotential[assigned] = (rowPotential[assigned] ?? 0) + delta;
          columnPotential[candidate] = (columnPotential[candidate] ?? 0) - delta;
        } else {
          slack[candidate] = (slack[candidate] ?? 0) - delta;
        }
      }
      column = next;
    } while ((rowOfColumn[column] ?? 0) !== 0);
    // Augment along the alternating path back to the virtual column.
    do {
      const before = previous[column] ?? 0;
      rowOfColumn[column] = rowOfColumn[before] ?? 0;
      column = before;
    } while (column !== 0);
  }
  const columnOfRow = new Array<number>(rows).fill(-1);
  for (let column = 1; column <= columns; column++) {
    const row = rowOfColumn[column] ?? 0;
    if (row > 0) columnOfRow[row - 1] = column - 1;
  }
  return columnOfRow;
}
