import { WeftError } from '../errors.js';
import { indexDependencies } from './dependency-index.js';
import { orderPositions } from './topological-order.js';
import type { Workflow } from './workflow.js';

export interface CriticalPath {
  /** The sum of the durations along the path: the makespan with unlimited parallelism. */
  readonly length: number;
  /** Subtask ids from a source to the subtask that finishes last. */
  readonly path: string[];
}

/**
 * The longest duration-weighted dependency chain (docs/algorithms.md#critical-path). Ties go to the subtask earliest in
 * the input, so the answer is deterministic. Durations must be finite and not negative.
 */
export function criticalPath(workflow: Pick<Workflow, 'subtasks'>, durationOf: (id: string) => number): CriticalPath {
  const index = indexDependencies(workflow);
  const finish = new Array<number>(index.ids.length).fill(0);
  const previous = new Array<number>(index.ids.length).fill(-1);
  for (const position of orderPositions(index)) {
    const id = index.ids[position] ?? '';
    const duration = durationOf(id);
    if (!Number.isFinite(duration) || duration < 0) {
      throw new WeftError(
        'BAD_INPUT',
        `Expected the duration of "${id}" to be a finite number >= 0, got ${duration} (${typeof duration})`,
      );
    }
    let start = 0;
    // Parents in input order, so the earliest wins a tie.
    for (const parent of [...(index.parents[position] ?? [])].sort((a, b) => a - b)) {
      const parentFinish = finish[parent] ?? 0;
      if (previous[position] === -1 || parentFinish > start) {
        start = parentFinish;
        previous[position] = parent;
      }
    }
    finish[position] = start + duration;
  }
  let last = -1;
  finish.forEach((time, position) => {
    if (last === -1 || time > (finish[last] ?? 0)) last = position;
  });
  const path: string[] = [];
  for (let position = last; position !== -1; position = previous[position] ?? -1) path.push(index.ids[position] ?? '');
  return { length: last === -1 ? 0 : (finish[last] ?? 0), path: path.reverse() };
}
