/**
 * The answer of a run: the accepted outputs of its sink subtasks (those nothing depends on), in plan order. Pure.
 * One sink gives its output as it is; several are each headed by their id.
 */
import type { TaskSummary } from './run-summary.js';

export interface RunResult {
  /** The sink subtasks whose outputs make the text, in plan order. */
  readonly from: readonly string[];
  readonly text: string;
  /** Sink subtasks with no accepted output (the run did not finish them). */
  readonly missing: readonly string[];
}

/** Undefined when no sink subtask has an accepted output. */
export function runResult(tasks: readonly Pick<TaskSummary, 'id' | 'dependsOn' | 'output'>[]): RunResult | undefined {
  const parents = new Set(tasks.flatMap((task) => task.dependsOn));
  const sinks = tasks.filter((task) => !parents.has(task.id));
  const done = sinks.filter((task): task is typeof task & { output: string } => task.output !== undefined);
  if (done.length === 0) return undefined;
  const text =
    done.length === 1 ? done[0]!.output : done.map((task) => `## ${task.id}\n\n${task.output.trimEnd()}`).join('\n\n');
  return {
    from: done.map((task) => task.id),
    text,
    missing: sinks.filter((task) => task.output === undefined).map((task) => task.id),
  };
}
