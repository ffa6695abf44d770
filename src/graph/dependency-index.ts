import { WeftError } from '../errors.js';
import type { Workflow } from './workflow.js';

/**
 * Subtasks by input position with their edges, shared by the graph algorithms. Workflows from
 * `parseWorkflow` are always valid; hand-built ones are checked here so the algorithms never
 * silently drop an edge.
 */
export interface DependencyIndex {
  readonly ids: readonly string[];
  readonly positionOf: ReadonlyMap<string, number>;
  /** Positions of each subtask's dependencies, without repeats, in `dependsOn` order. */
  readonly parents: readonly (readonly number[])[];
  /** Positions of each subtask's dependents, in input order. */
  readonly children: readonly (readonly number[])[];
}

export function indexDependencies(workflow: Pick<Workflow, 'subtasks'>): DependencyIndex {
  const ids = workflow.subtasks.map((subtask) => subtask.id);
  const positionOf = new Map<string, number>();
  ids.forEach((id, position) => {
    if (positionOf.has(id)) throw new WeftError('PLAN_INVALID', `duplicate subtask id "${id}"`);
    positionOf.set(id, position);
  });
  const children: number[][] = ids.map(() => []);
  const parents = workflow.subtasks.map((subtask, position) => {
    const own = new Set<number>();
    for (const dependency of subtask.dependsOn) {
      const parent = positionOf.get(dependency);
      if (parent === undefined) {
        throw new WeftError('PLAN_INVALID', `subtask "${subtask.id}" depends on unknown subtask "${dependency}"`);
      }
      own.add(parent);
    }
    for (const parent of own) children[parent]?.push(position);
    return [...own];
  });
  return { ids, positionOf, parents, children };
}
