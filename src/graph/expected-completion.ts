import { WeftError } from '../errors.js';
import { indexDependencies } from './dependency-index.js';
import { orderPositions } from './topological-order.js';
import type { Workflow } from './workflow.js';

/**
 * The expected number of completed subtasks under Theorem 3.1's model (docs/algorithms.md#expected-completion): each
 * subtask fails on its own with probability `p`, independently, and a failure blocks every descendant. A subtask
 * completes exactly when it and all its ancestors succeed, so
 *
 *     E[completed] = Σ_v (1 − p)^(1 + |ancestors(v)|).
 *
 * Adding a dependency never shrinks an ancestor set, and one that gives some subtask a new ancestor lowers
 * the sum strictly for 0 < p < 1 — the theorem. The powers of 1 − p are built by repeated multiplication,
 * so they are non-increasing in floating point too and the "never raises" half holds exactly.
 * Throws BAD_INPUT unless 0 ≤ p ≤ 1, and PLAN_INVALID on a cycle or an unknown dependency.
 */
export function expectedCompleted(workflow: Pick<Workflow, 'subtasks'>, p: number): number {
  if (typeof p !== 'number' || !(p >= 0 && p <= 1)) {
    throw new WeftError('BAD_INPUT', `Expected a failure probability in [0, 1], got ${String(p)} (${typeof p})`);
  }
  const counts = ancestorCountsByPosition(workflow);
  const survival = 1 - p;
  const powers = [1];
  for (let exponent = 1; exponent <= counts.length; exponent++) powers.push((powers[exponent - 1] ?? 0) * survival);
  let sum = 0;
  for (const count of counts) sum += powers[count + 1] ?? 0;
  return sum;
}

/** How many ancestors (transitive dependencies) each subtask has, by id. Same errors as `expectedCompleted`. */
export function ancestorCounts(workflow: Pick<Workflow, 'subtasks'>): Map<string, number> {
  const counts = ancestorCountsByPosition(workflow);
  return new Map(workflow.subtasks.map((subtask, position) => [subtask.id, counts[position] ?? 0]));
}

/**
 * Ancestor sets as bitsets (one 32-bit word per 32 subtasks), filled in topological order: a subtask's set
 * is the union of its parents' sets plus the parents themselves. O(V·E/32) time and V²/8 bytes, about 3 MB
 * for 5,000 subtasks.
 */
function ancestorCountsByPosition(workflow: Pick<Workflow, 'subtasks'>): number[] {
  const index = indexDependencies(workflow);
  const count = index.ids.length;
  const words = Math.ceil(count / 32);
  const ancestors = new Uint32Array(count * words);
  for (const position of orderPositions(index)) {
    const own = position * words;
    for (const parent of index.parents[position] ?? []) {
      const theirs = parent * words;
      for (let word = 0; word < words; word++) ancestors[own + word]! |= ancestors[theirs + word]!;
      ancestors[own + (parent >>> 5)]! |= 1 << (parent & 31);
    }
  }
  const counts = new Array<number>(count).fill(0);
  for (let position = 0; position < count; position++) {
    let total = 0;
    for (let word = position * words, end = word + words; word < end; word++) total += bitCount(ancestors[word] ?? 0);
    counts[position] = total;
  }
  return counts;
}

function bitCount(word: number): number {
  let value = word - ((word >>> 1) & 0x55555555);
  value = (value & 0x33333333) + ((value >>> 2) & 0x33333333);
  return (Math.imul((value + (value >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff;
}
