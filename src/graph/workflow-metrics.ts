import { indexDependencies } from './dependency-index.js';
import { levels } from './levels.js';
import type { Workflow } from './workflow.js';

/** The modularity measures of docs/algorithms.md#modularity-metrics, plus the sizes they derive from. */
export interface WorkflowMetrics {
  readonly subtasks: number;
  /** T, the number of levels (the depth of the DAG). */
  readonly levels: number;
  /** P_avg = |V| / T. */
  readonly parallelism: number;
  /** C_dep, the population standard deviation of in-degree + out-degree. */
  readonly dependencyComplexity: number;
  readonly edges: number;
}

/** P_avg = (1/T) Σ|S_t| = |V| / T: the average number of subtasks per level. 0 for no subtasks. */
export function parallelism(workflow: Pick<Workflow, 'subtasks'>): number {
  const depth = levels(workflow).length;
  return depth === 0 ? 0 : workflow.subtasks.length / depth;
}

/**
 * C_dep = population standard deviation of deg(v) = in-degree + out-degree over all subtasks (the
 * paper's formula and its reference code's networkx `degree`). 0 for no subtasks.
 */
export function dependencyComplexity(workflow: Pick<Workflow, 'subtasks'>): number {
  const index = indexDependencies(workflow);
  const degrees = index.ids.map(
    (_, position) => (index.parents[position]?.length ?? 0) + (index.children[position]?.length ?? 0),
  );
  if (degrees.length === 0) return 0;
  const mean = degrees.reduce((sum, degree) => sum + degree, 0) / degrees.length;
  const variance = degrees.reduce((sum, degree) => sum + (degree - mean) ** 2, 0) / degrees.length;
  return Math.sqrt(variance);
}

export function workflowMetrics(workflow: Pick<Workflow, 'subtasks'>): WorkflowMetrics {
  const depth = levels(workflow).length;
  const edges = indexDependencies(workflow).parents.reduce((sum, parents) => sum + parents.length, 0);
  return {
    subtasks: workflow.subtasks.length,
    levels: depth,
    parallelism: depth === 0 ? 0 : workflow.subtasks.length / depth,
    dependencyComplexity: dependencyComplexity(workflow),
    edges,
  };
}
