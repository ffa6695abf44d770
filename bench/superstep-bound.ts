/**
 * The makespan of a bulk-synchronous (Pregel) run such as LangGraph's: a node runs in the superstep after its last
 * parent's, i.e. on its longest-path level, and a superstep lasts as long as its slowest node. Pure.
 */
import { levels, type Workflow } from '../src/graph/index.js';

export function superstepBound(workflow: Pick<Workflow, 'subtasks'>, durationOf: (id: string) => number): number {
  return levels(workflow).reduce((total, level) => total + Math.max(0, ...level.map(durationOf)), 0);
}
