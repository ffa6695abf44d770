/**
 * Checks a recorded schedule against its DAG: every subtask ran exactly once and started only after all of its
 * parents had ended. Pure, so both engines' traces are judged by the same rule.
 */
import type { Workflow } from '../src/graph/index.js';

export interface Span {
  readonly id: string;
  readonly start: number;
  readonly end: number;
}

export interface ScheduleCheck {
  readonly ok: boolean;
  readonly problems: string[];
}

export function checkSchedule(workflow: Pick<Workflow, 'subtasks'>, spans: readonly Span[]): ScheduleCheck {
  const problems: string[] = [];
  const byId = new Map<string, Span[]>();
  for (const span of spans) byId.set(span.id, [...(byId.get(span.id) ?? []), span]);
  for (const subtask of workflow.subtasks) {
    const runs = byId.get(subtask.id) ?? [];
    if (runs.length !== 1) {
      problems.push(`${subtask.id} ran ${runs.length} times`);
      continue;
    }
    const start = runs[0]!.start;
    for (const parent of subtask.dependsOn) {
      const parentRuns = byId.get(parent) ?? [];
      if (parentRuns.some((run) => run.end > start))
        problems.push(`${subtask.id} started before its parent ${parent} ended`);
    }
  }
  const known = new Set(workflow.subtasks.map((subtask) => subtask.id));
  for (const id of byId.keys()) if (!known.has(id)) problems.push(`${id} is not in the workflow`);
  return { ok: problems.length === 0, problems };
}
