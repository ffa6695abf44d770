import type { Subtask } from './workflow.js';

/** How one workflow became another, by subtask id. Each list keeps the order of the workflow it comes from. */
export interface WorkflowDiff {
  /** Ids only in `after`. */
  readonly added: string[];
  /** Ids only in `before`. */
  readonly removed: string[];
  /** Ids in both whose objective or agent differs. */
  readonly changed: string[];
  /** Ids in both whose set of dependencies differs. */
  readonly rewired: string[];
}

/** What a diff compares: a plan version as stored (WorkflowJson) diffs as well as a parsed Workflow. */
type DiffedSubtask = Pick<Subtask, 'id' | 'objective' | 'agent' | 'dependsOn'>;

export function diffWorkflows(
  before: { readonly subtasks: readonly DiffedSubtask[] },
  after: { readonly subtasks: readonly DiffedSubtask[] },
): WorkflowDiff {
  const beforeById = new Map<string, DiffedSubtask>(before.subtasks.map((subtask) => [subtask.id, subtask]));
  const afterIds = new Set(after.subtasks.map((subtask) => subtask.id));
  const diff: WorkflowDiff = { added: [], removed: [], changed: [], rewired: [] };
  for (const subtask of after.subtasks) {
    const previous = beforeById.get(subtask.id);
    if (!previous) {
      diff.added.push(subtask.id);
      continue;
    }
    if (previous.objective !== subtask.objective || previous.agent !== subtask.agent) diff.changed.push(subtask.id);
    if (!sameSet(previous.dependsOn, subtask.dependsOn)) diff.rewired.push(subtask.id);
  }
  for (const subtask of before.subtasks) {
    if (!afterIds.has(subtask.id)) diff.removed.push(subtask.id);
  }
  return diff;
}

/** One line per non-empty category, e.g. `added: d, e`; `no changes` when there are none. */
export function formatDiff(diff: WorkflowDiff): string {
  const lines = (['added', 'removed', 'changed', 'rewired'] as const)
    .filter((category) => diff[category].length > 0)
    .map((category) => `${category}: ${diff[category].join(', ')}`);
  return lines.length > 0 ? lines.join('\n') : 'no changes';
}

// Order and repeats do not change what a subtask waits for.
function sameSet(left: readonly string[], right: readonly string[]): boolean {
  const leftSet = new Set(left);
  const rightSet = new Set(right);
  return leftSet.size === rightSet.size && [...leftSet].every((item) => rightSet.has(item));
}
