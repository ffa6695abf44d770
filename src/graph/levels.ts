import { indexDependencies } from './dependency-index.js';
import { orderPositions } from './topological-order.js';
import type { Workflow } from './workflow.js';

/**
 * The longest-path layering S_1..S_T of docs/algorithms.md#modularity-metrics: a subtask without dependencies is on
 * level 1, any other on 1 + the highest level of its dependencies. Ids within a level keep the input order.
 * Throws PLAN_INVALID on a cycle or an unknown dependency.
 */
export function levels(workflow: Pick<Workflow, 'subtasks'>): string[][] {
  const index = indexDependencies(workflow);
  const levelOf = new Array<number>(index.ids.length).fill(1);
  for (const position of orderPositions(index)) {
    for (const parent of index.parents[position] ?? []) {
      levelOf[position] = Math.max(levelOf[position] ?? 1, (levelOf[parent] ?? 1) + 1);
    }
  }
  const layers: string[][] = [];
  index.ids.forEach((id, position) => {
    const layer = (levelOf[position] ?? 1) - 1;
    while (layers.length <= layer) layers.push([]);
    layers[layer]?.push(id);
  });
  return layers;
}
