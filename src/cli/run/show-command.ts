/**
 * `weft show <runId>`: a recorded run, as a summary, Mermaid, DOT or the `weft run --json` document; `--history`
 * replays how its plan changed; `--output <subtask>` prints one subtask's accepted output; `--attempts <subtask>` prints
 * each of its attempts: what a retry was told of the earlier ones, its output (accepted or not) and its verdict.
 */
import {
  formatPlanHistory,
  outputFilePath,
  ownerState,
  planHistory,
  runPaths,
  summarizeRun,
  taskDetail,
  toDot,
  toolCallLine,
  toolCallViews,
  toMermaid,
  TOOL_FAILURE_MARK,
  toolCallCount,
  toolFailureWarning,
  WeftError,
  workflowFromJson,
  type RetryFeedback,
  type RunSummary,
  type StoredRunStatus,
  type WeftEvent,
  runEvents,
} from '../../internal.js';
import { teamOutcome } from '../team/team-output.js';
import { loadContext, openExistingStore, runNotFound } from '../context.js';
import type { Output } from '../output.js';
import { printResult, printTaskMeasures, runJson } from './run-command.js';

export interface ShowFlags {
  readonly home?: string;
  readonly mermaid?: boolean;
  readonly dot?: boolean;
  readonly history?: boolean;
  /** A subtask id: print its accepted output. */
  readonly output?: string;
  /** A subtask id: print every attempt with what it was told, its output and its verdict. */
  readonly attempts?: string;
  readonly json?: boolean;
}

export async function showCommand(runId: string, flags: ShowFlags, output: Output): Promise<number> {
  const views = (['mermaid', 'dot', 'history', 'output', 'attempts'] as const).filter(
    (view) => flags[view] !== undefined && flags[view] !== false,
  );
  if (views.length > 1) {
    throw new WeftError('BAD_INPUT', `Choose one of ${views.map((view) => `--${view}`).join(' and ')}`, {
      location: { field: `--${views[0]}` },
    });
  }
  const context = await loadContext(flags);
  // Reading never creates a store: without one there is no run to show.
  const store = await openExistingStore(context);
  if (!store) throw runNotFound(runId, context);
  try {
    const run = await store.getRun(runId);
    if (!run) throw runNotFound(runId, context);
    const events = await runEvents(store, runId);
    if (flags.history) {
      const history = planHistory(events, await store.planVersions(runId));
      if (output.json) {
        output.document({ runId, ...history });
        return 0;
      }
      const count = history.versions.length;
      output.text(`run ${runId}: ${count} plan version${count === 1 ? '' : 's'}`);
      output.text(formatPlanHistory(history));
      return 0;
    }
    const summary = summarizeRun(runId, events);
    const shown = shownSummary(summary, run.status, context.home);
    if (flags.output !== undefined) return showOutput(shown, flags.output, output);
    if (flags.attempts !== undefined) return showAttempts(shown, events, flags.attempts, output);
    if (output.json) {
      output.document(runJson(shown));
      return 0;
    }
    if (flags.mermaid || flags.dot) {
      if (!summary.workflow) throw new WeftError('NOT_FOUND', `Run "${runId}" has no plan yet`);
      // summary.workflow carries each subtask's final status, so the colours are how the run ended.
      const workflow = workflowFromJson(summary.workflow);
      const warned = new Set(summary.tasks.filter((task) => toolFailureWarning(task) !== undefined).map((t) => t.id));
      output.text((flags.mermaid ? toMermaid(workflow, { statuses: true, warned }) : toDot(workflow)).trimEnd());
      return 0;
    }
    // The JSON document has no `running`; the text can say that the run's process is still at work.
    const live = run.status === 'running' && summary.status === 'interrupted' && ownerState(run.owner) === 'alive';
    output.text(
      `run ${runId}: ${live ? `running (pid ${run.owner?.pid})` : shown.status}${summary.reason ? ` (${summary.reason})` : ''}`,
    );
    output.text(`task: ${run.task.split('\n')[0]}`);
    output.text(
      `model: ${run.model}; plan v${summary.planVersion}; ${(summary.makespanMs / 1000).toFixed(2)} s; ${summary.calls} calls; $${summary.costUsd.toFixed(4)}${summary.toolCalls > 0 ? `; ${toolCallCount(summary.toolCalls, summary.toolCallsFailed)}` : ''}`,
    );
    const toolViews = toolCallViews(events);
    // The last team attempt of each subtask, shown under it (report.md has the layers).
    const teams = new Map(events.flatMap((event) => (event.type === 'team' ? [[event.taskId, event] as const] : [])));
    for (const task of summary.tasks) {
      const warning = toolFailureWarning(task);
      const status = warning === undefined ? task.status : `${task.status} ${TOOL_FAILURE_MARK}`;
      output.text(
        `  ${task.id.padEnd(12)} ${status.padEnd(12)} attempts ${task.attempts}${task.dependsOn.length ? `  after ${task.dependsOn.join(', ')}` : ''}`,
      );
      if (task.reason !== undefined) output.text(`  ${''.padEnd(12)} why: ${task.reason}`);
      for (const retry of task.retries ?? []) output.text(`  ${''.padEnd(12)} ${retryLine(retry)}`);
      if (warning !== undefined)
        output.text(`  ${''.padEnd(12)} ${TOOL_FAILURE_MARK} ${warning}: check its output against them`);
      const team = teams.get(task.id);
      if (team) {
        output.text(`  ${''.padEnd(12)} team ${team.team} (${team.members.join(', ')}): ${teamOutcome(team)}`);
      }
      for (const view of toolViews.filter((candidate) => candidate.taskId === task.id))
        output.text(`  ${''.padEnd(12)} tool (attempt ${view.attempt}) ${toolCallLine(view)}`);
    }
    if (summary.tasks.some((task) => task.output !== undefined)) {
      output.text(`outputs: ${shown.runDir}/outputs/ (one subtask: weft show ${runId} --output <subtask>)`);
    }
    printTaskMeasures(summary, output);
    printResult(summary, output);
    return 0;
  } finally {
    await store.close();
  }
}

/** A run's summary with the status `weft show` reports and its folder (for `--json`, and `weft mcp`'s documents). */
export function shownSummary<S extends RunSummary>(
  summary: S,
  storedStatus: StoredRunStatus,
  home: string,
): S & { readonly runDir: string } {
  // A run with no run-end event did not finish: the process died or is still going.
  const status = summary.status !== 'interrupted' || storedStatus === 'running' ? summary.status : storedStatus;
  return { ...summary, status, runDir: runPaths(home, summary.runId).dir };
}

/** One retry and what it was told, on one line: `retry 2 was told: #1 retry: the list lacks item 3`. */
function retryLine(retry: RetryFeedback): string {
  const told = retry.feedback.map((entry) => `#${entry.attempt} ${entry.verdict}: ${oneLine(entry.reason, 160)}`);
  return `retry ${retry.attempt} was told: ${told.join('; ')}`;
}

function oneLine(text: string, limit: number): string {
  const flat = text.replace(/\s+/g, ' ').trim() || '(no reason given)';
  return flat.length > limit ? `${flat.slice(0, limit)}…` : flat;
}

/** The subtask named by `--output` or `--attempts`, or BAD_INPUT listing the run's subtasks. */
function knownTask(summary: RunSummary, id: string, flag: string): RunSummary['tasks'][number] {
  const task = summary.tasks.find((candidate) => candidate.id === id);
  if (task) return task;
  const known = summary.tasks.map((candidate) => candidate.id);
  throw new WeftError(
    'BAD_INPUT',
    `Run "${summary.runId}" has no subtask "${id}"; its subtasks are ${known.length > 0 ? known.join(', ') : '(none: no plan was recorded)'}`,
    { location: { field: flag } },
  );
}

/**
 * `--attempts <subtask>`: every attempt, in order, with what a retry was told, how it ended, its verdicts and its
 * whole output (the inspector's prompt points here for a failed output it cut).
 */
function showAttempts(summary: RunSummary, events: readonly WeftEvent[], id: string, output: Output): number {
  const task = knownTask(summary, id, '--attempts');
  const detail = taskDetail(events, id);
  const attempts = detail.attempts.map((attempt) => ({
    attempt: attempt.attempt,
    agent: attempt.agent,
    feedback: [...(attempt.feedback ?? [])],
    status: attempt.status ?? 'running',
    ...(attempt.outcome !== undefined ? { outcome: attempt.outcome } : {}),
    ...(attempt.error !== undefined ? { error: attempt.error } : {}),
    verdicts: attempt.verdicts.map((verdict) => ({ ...verdict })),
    output: attempt.output ?? null,
  }));
  if (output.json) {
    output.document({ runId: summary.runId, id, status: task.status, attempts });
    return 0;
  }
  output.text(`subtask ${id} of run ${summary.runId}: ${task.status}, ${attempts.length} attempt(s)`);
  for (const attempt of attempts) {
    output.text('');
    output.text(`attempt ${attempt.attempt} (${attempt.agent}): ${attempt.outcome ?? attempt.status}`);
    for (const entry of attempt.feedback)
      output.text(`  told of attempt ${entry.attempt} (${entry.verdict}): ${oneLine(entry.reason, 400)}`);
    if (attempt.error !== undefined) output.text(`  error: ${attempt.error}`);
    for (const verdict of attempt.verdicts)
      output.text(`  verdict: ${verdict.verdict}: ${oneLine(verdict.reason, 400)}`);
    if (attempt.output !== null) {
      output.text('  output:');
      output.text(attempt.output.replace(/\n$/, ''));
    }
  }
  return 0;
}

/** `--output <subtask>`: the accepted output as it is (text), or with its subtask's status (JSON). */
function showOutput(
  summary: ReturnType<typeof summarizeRun> & { readonly runDir: string },
  id: string,
  output: Output,
): number {
  const task = knownTask(summary, id, '--output');
  if (output.json) {
    output.document({
      runId: summary.runId,
      id,
      status: task.status,
      output: task.output ?? null,
      outputFile:
        task.output !== undefined
          ? outputFilePath(id, summary.tasks.filter((each) => each.output !== undefined).length)
          : null,
      runDir: summary.runDir,
    });
    return task.output !== undefined ? 0 : 1;
  }
  if (task.output === undefined) {
    output.log(`subtask "${id}" of run ${summary.runId} has no accepted output (status: ${task.status})`);
    return 1;
  }
  output.text(task.output.replace(/\n$/, ''));
  return 0;
}
