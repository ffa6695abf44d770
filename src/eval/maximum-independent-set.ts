/**
 * Exact maximum independent set by branch and bound, for the small conflict graphs of WorfEval's common
 * induced subgraph (docs/algorithms.md#f1_graph). Vertices of degree ≤ 1 are always taken (safe for a maximum set);
 * when every remaining degree is 2 the graph is a union of cycles, solved directly; otherwise it branches on a
 * vertex of maximum degree. That keeps 30 vertices to a few thousand branches at worst.
 */
export interface IndependentSetResult {
  /** The best set found, as vertex indices in increasing order. */
  readonly vertices: readonly number[];
  /** False when the time limit stopped the search: the set is then the best found, not proven maximum. */
  readonly exact: boolean;
}

export interface IndependentSetOptions {
  /** Stop searching after this many milliseconds and report `exact: false`. */
  readonly timeLimitMs?: number;
  readonly now?: () => number;
}

export function maximumIndependentSet(
  conflicts: readonly (readonly boolean[])[],
  options: IndependentSetOptions = {},
): IndependentSetResult {
  const count = conflicts.length;
  const now = options.now ?? (() => performance.now());
  const deadline = now() + (options.timeLimitMs ?? Infinity);
  const neighbours: number[][] = conflicts.map((row, vertex) =>
    row.flatMap((conflict, other) => (conflict && other !== vertex ? [other] : [])),
  );
  const alive = new Uint8Array(count);
  let best = greedy(neighbours, count);
  let visits = 0;
  let timedOut = false;

  const search = (candidates: number[], chosen: number[]): void => {
    if (timedOut) return;
    if ((++visits & 255) === 0 && now() > deadline) {
      timedOut = true;
      return;
    }
    let remaining = candidates;
    const taken = [...chosen];
    for (;;) {
      if (taken.length + remaining.length <= best.length) return;
      for (const vertex of remaining) alive[vertex] = 1;
      const degree = (vertex: number) =>
        (neighbours[vertex] ?? []).reduce((sum, other) => sum + (alive[other] ?? 0), 0);
      let low = -1;
      let high = -1;
      let highDegree = -1;
      for (const vertex of remaining) {
        const value = degree(vertex);
        if (value <= 1) {
          low = vertex;
          break;
        }
        if (value > highDegree) {
          highDegree = value;
          high = vertex;
        }
      }
      for (const vertex of remaining) alive[vertex] = 0;
      if (low >= 0) {
        // A vertex with at most one live neighbour belongs to some maximum set: take it, drop its neighbour.
        taken.push(low);
        remaining = without(remaining, [low, ...(neighbours[low] ?? [])]);
        continue;
      }
      if (remaining.length === 0) {
        if (taken.length > best.length) best = taken;
        return;
      }
      if (highDegree === 2) {
        const cycles = takeFromCycles(remaining, neighbours);
        if (taken.length + cycles.length > best.length) best = [...taken, ...cycles];
        return;
      }
      search(without(remaining, [high, ...(neighbours[high] ?? [])]), [...taken, high]);
      search(without(remaining, [high]), taken);
      return;
    }
  };
  search(
    Array.from({ length: count }, (_, vertex) => vertex),
    [],
  );
  return { vertices: [...best].sort((a, b) => a - b), exact: !timedOut };
}

function without(vertices: readonly number[], removed: readonly number[]): number[] {
  const drop = new Set(removed);
  return vertices.filter((vertex) => !drop.has(vertex));
}

/** Every vertex has exactly two live neighbours: the graph is disjoint cycles; take every other vertex of each. */
function takeFromCycles(vertices: readonly number[], neighbours: readonly (readonly number[])[]): number[] {
  const live = new Set(vertices);
  const seen = new Set<number>();
  const chosen: number[] = [];
  for (const start of vertices) {
    if (seen.has(start)) continue;
    const cycle: number[] = [];
    let previous = -1;
    let current = start;
    while (!seen.has(current)) {
      seen.add(current);
      cycle.push(current);
      const next = (neighbours[current] ?? []).find(
        (other) => live.has(other) && other !== previous && !seen.has(other),
      );
      if (next === undefined) break;
      previous = current;
      current = next;
    }
    for (let index = 0; index + 1 < cycle.length; index += 2) chosen.push(cycle[index] ?? 0);
  }
  return chosen;
}

/** Smallest-degree-first greedy: a good first bound, and the answer when the search runs out of time. */
function greedy(neighbours: readonly (readonly number[])[], count: number): number[] {
  const removed = new Uint8Array(count);
  const chosen: number[] = [];
  for (;;) {
    let pick = -1;
    let pickDegree = Infinity;
    for (let vertex = 0; vertex < count; vertex++) {
      if (removed[vertex]) continue;
      const degree = (neighbours[vertex] ?? []).filter((other) => !removed[other]).length;
      if (degree < pickDegree) {
        pick = vertex;
        pickDegree = degree;
      }
    }
    if (pick < 0) return chosen;
    chosen.push(pick);
    removed[pick] = 1;
    for (const other of neighbours[pick] ?? []) removed[other] = 1;
  }
}
