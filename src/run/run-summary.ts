/**
 * The `weft run --json` / `weft show --json` document (docs/contracts.md), folded from a run's events. Pure, so the
 * live run and `weft show` agree by construction.
 */
import type { SubtaskStatus, WorkflowJson } from '../graph/workflow.js';
import type { AttemptFeedback, RunStatus, WeftEvent } from './events.js';
import { planChangesOf, type ChangeMeasure } from './plan-history.js';
import { fateOf, foldFate, summaryReason, type Fates } from './subtask-fate.js';

export interface TaskSummary {
  readonly id: string;
  readonly status: SubtaskStatus;
  readonly attempts: number;
  readonly startMs: number | null;
  readonly endMs: number | null;
  readonly dependsOn: readonly string[];
  /** Why a failed subtask failed (its last failed attempt's error, or the verifier's reason); only when failed. */
  readonly reason?: string;
  /** The accepted output, present only for a completed subtask (the JSON documents print it as `output`). */
  readonly output?: string;
  /** Tool calls its attempts made (all of them), and how many of those failed (an error result). */
  readonly toolCalls: number;
  readonly toolCallsFailed: number;
  /** Each retry that was told of earlier attempts, and what it was told (their verdicts and reasons). */
  readonly retries?: readonly RetryFeedback[];
}

/** What one retry was told (docs/algorithms.md#retries-that-learn). */
export interface RetryFeedback {
  readonly attempt: number;
  readonly feedback: readonly AttemptFeedback[];
}

export interface RunSummary {
  readonly runId: string;
  readonly status: Exclude<RunStatus, 'running'>;
  readonly planVersion: number;
  readonly makespanMs: number;
  readonly calls: number;
  readonly tokens: { readonly input: number; readonly output: number };
  readonly costUsd: number;
  /** Tool calls the run's agents made. */
  readonly toolCalls: number;
  /** Of those, the ones that ended in an error (the tool failed, timed out, or the call was malformed). */
  readonly toolCallsFailed: number;
  readonly tasks: readonly TaskSummary[];
  /** How much the plan changed (the Flow paper's changed ratio); present once the plan changed at least once. */
  readonly planChanges?: ChangeMeasure;
  /** The checks of task success that are independent of the verifier (`--check`, `--judge-model`), when run. */
  readonly taskCheck?: TaskCheckSummary;
}

export interface TaskCheckSummary {
  /** Every check passed. */
  readonly passed: boolean;
  readonly checks: readonly {
    readonly method: 'command' | 'judge';
    readonly by: string;
    readonly passed: boolean;
    readonly detail: string;
    readonly exitCode?: number | null;
    readonly timedOut?: boolean;
  }[];
}

/**
 * `workflow` is the last plan version with each subtask's final status and accepted output folded in (the
 * version's own snapshot says what was done when it was made, not at the end).
 */
export function summarizeRun(
  runId: string,
  events: Iterable<WeftEvent>,
): RunSummary & { readonly workflow: WorkflowJson | undefined; readonly reason?: string } {
  let workflow: WorkflowJson | undefined;
  let planVersion = 0;
  let status: Exclude<RunStatus, 'running'> = 'interrupted';
  let reason: string | undefined;
  let makespanMs = 0;
  let calls = 0;
  let input = 0;
  let output = 0;
  let costUsd = 0;
  let toolCalls = 0;
  let toolCallsFailed = 0;
  /** Per subtask id: [tool calls, failed ones]. */
  const toolsOf = new Map<string, [number, number]>();
  const countTool = (taskId: string, failed: boolean) => {
    const counts = toolsOf.get(taskId) ?? [0, 0];
    if (failed) counts[1] += 1;
    else counts[0] += 1;
    toolsOf.set(taskId, counts);
  };
  const fates: Fates = new Map();
  /** Per subtask id, per attempt: what the attempt was told (a resumed attempt's start repeats its own). */
  const told = new Map<string, Map<number, readonly AttemptFeedback[]>>();
  const versionWorkflows = new Map<number, WorkflowJson>();
  const checks: TaskCheckSummary['checks'][number][] = [];
  for (const event of events) {
    makespanMs = Math.max(makespanMs, event.at);
    // Each subtask's fate is the shared fold's (the same one resume reads); this switch adds the run's totals.
    foldFate(fates, event);
    switch (event.type) {
      case 'plan-chosen':
      case 'plan-update':
        workflow = event.workflow;
        planVersion = event.version;
        // A resumed run may announce a version again; the first announcement is the version.
        if (!versionWorkflows.has(event.version)) versionWorkflows.set(event.version, event.workflow);
        break;
      case 'task-check': {
        // A resumed run checks again at its end: the latest check of each kind counts.
        const kept = checks.filter((check) => check.method !== event.method);
        checks.length = 0;
        checks.push(...kept, {
          method: event.method,
          by: event.by,
          passed: event.passed,
          detail: event.detail,
          ...(event.exitCode !== undefined ? { exitCode: event.exitCode } : {}),
          ...(event.timedOut !== undefined ? { timedOut: event.timedOut } : {}),
        });
        break;
      }
      case 'model-call':
        calls += 1;
        input += event.inputTokens;
        output += event.outputTokens;
        costUsd += event.costUsd;
        break;
      case 'task-start':
        if (event.feedback && event.feedback.length > 0) {
          const byAttempt = told.get(event.taskId) ?? new Map<number, readonly AttemptFeedback[]>();
          byAttempt.set(event.attempt, event.feedback);
          told.set(event.taskId, byAttempt);
        }
        break;
      case 'tool-call':
        toolCalls += 1;
        countTool(event.taskId, false);
        break;
      case 'tool-result':
        if (!event.ok) {
          toolCallsFailed += 1;
          countTool(event.taskId, true);
        }
        break;
      case 'run-end':
        status = event.status === 'running' ? 'interrupted' : event.status;
        reason = event.reason;
        break;
      default:
        break;
    }
  }
  const order = workflow?.subtasks ?? [];
  const tasksSummary: TaskSummary[] = order.map((subtask) => {
    const task = fateOf(fates, subtask.id);
    // A subtask still "in progress" when the log ends was interrupted; report it as not finished.
    const settled: SubtaskStatus = task.status === 'in progress' && status !== 'interrupted' ? 'failed' : task.status;
    const output = settled === 'completed' ? task.output : undefined;
    const reason = settled === 'failed' ? summaryReason(task) : undefined;
    const [taskToolCalls, taskToolCallsFailed] = toolsOf.get(subtask.id) ?? [0, 0];
    const retries = [...(told.get(subtask.id) ?? new Map<number, readonly AttemptFeedback[]>())]
      .sort(([a], [b]) => a - b)
      .map(([attempt, feedback]) => ({ attempt, feedback }));
    return {
      id: subtask.id,
      status: settled,
      attempts: task.started,
      startMs: task.startMs,
      endMs: task.endMs,
      dependsOn: subtask.dependsOn,
      toolCalls: taskToolCalls,
      toolCallsFailed: taskToolCallsFailed,
      ...(output !== undefined ? { output } : {}),
      ...(reason !== undefined ? { reason } : {}),
      ...(retries.length > 0 ? { retries } : {}),
    };
  });
  const byId = new Map(tasksSummary.map((task) => [task.id, task]));
  const final: WorkflowJson | undefined = workflow && {
    ...workflow,
    subtasks: workflow.subtasks.map((subtask) => {
      const { output: _snapshot, ...rest } = subtask;
      const task = byId.get(subtask.id)!;
      return {
        ...rest,
        status: task.status,
        attempts: task.attempts,
        ...(task.output !== undefined ? { output: task.output } : {}),
      };
    }),
  };
  const ordered = [...versionWorkflows.keys()].sort((left, right) => left - right);
  const planChanges = ordered.length > 1 ? planChangesOf(ordered.map((v) => versionWorkflows.get(v)!)) : null;
  return {
    runId,
    status,
    planVersion,
    makespanMs,
    calls,
    tokens: { input, output },
    costUsd: Math.round(costUsd * 1e6) / 1e6,
    toolCalls,
    toolCallsFailed,
    tasks: tasksSummary,
    ...(planChanges ? { planChanges } : {}),
    ...(checks.length > 0 ? { taskCheck: { passed: checks.every((check) => check.passed), checks } } : {}),
    workflow: final,
    ...(reason !== undefined ? { reason } : {}),
  };
}
