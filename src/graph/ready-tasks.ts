import type { Workflow } from './workflow.js';

/**
 * Subtasks that can start now (docs/algorithms.md#ready-set): not started, with every dependency completed. In input
 * order. Pure, so the executor's choices can be checked against it; an unknown dependency is simply
 * never completed.
 */
export function readyTasks(workflow: Pick<Workflow, 'subtasks'>): string[] {
  const statusOf = new Map(workflow.subtasks.map((subtask) => [subtask.id, subtask.status]));
  return workflow.subtasks
    .filter(
      (subtask) =>
        subtask.status === 'not started' &&
        subtask.dependsOn.every((dependency) => statusOf.get(dependency) === 'completed'),
    )
    .map((subtask) => subtask.id);
}

/** The paper's `child` lists: for every subtask, the subtasks that depend on it, in input order. */
export function childrenOf(workflow: Pick<Workflow, 'subtasks'>): Map<string, string[]> {
  const children = new Map<string, string[]>(workflow.subtasks.map((subtask) => [subtask.id, []]));
  for (const subtask of workflow.subtasks) {
    for (const dependency of new Set(subtask.dependsOn)) children.get(dependency)?.push(subtask.id);
  }
  return children;
}
