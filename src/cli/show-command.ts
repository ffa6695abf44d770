/**
 * `weft show <runId>`: a recorded run, as a summary, Mermaid, DOT or the `weft run --json` document; `--history`
 * replays how its plan changed.
 */
import { WeftError } from '../errors.js';
import { toDot, toMermaid, workflowFromJson } from '../graph/index.js';
import type { WeftEvent } from '../run/events.js';
import { teamOutcome } from './team-output.js';
import { formatPlanHistory, planHistory } from '../run/plan-history.js';
import { summarizeRun } from '../run/run-summary.js';
import { ownerState } from '../store/run-owner.js';
import { loadContext, openExistingStore, storePlace } from './context.js';
import type { Output } from './output.js';
import { runJson } from './run-command.js';

export interface ShowFlags {
  readonly home?: string;
  readonly mermaid?: boolean;
  readonly dot?: boolean;
  readonly history?: boolean;
  readonly json?: boolean;
}

export async function showCommand(runId: string, flags: ShowFlags, output: Output): Promise<number> {
  const views = (['mermaid', 'dot', 'history'] as const).filter((view) => flags[view]);
  if (views.length > 1) {
    throw new WeftError('BAD_INPUT', `Choose one of ${views.map((view) => `--${view}`).join(' and ')}`, { location: { field: `--${views[0]}` } });
  }
  const context = await loadContext(flags);
  const notFound = () => new WeftError('NOT_FOUND', `No run "${runId}" in ${storePlace(context)} (see \`weft runs\`)`, { location: { field: '<runId>' } });
  // Reading never creates a store: without one there is no run to show.
  const store = await openExistingStore(context);
  if (!store) throw notFound();
  try {
    const run = await store.getRun(runId);
    if (!run) throw notFound();
    const events = (await store.events(runId)).map((stored) => stored.event as WeftEvent);
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
    // A run with no run-end event did not finish: the process died or is still going.
    const status = summary.status !== 'interrupted' || run.status === 'running' ? summary.status : run.status;
    const shown = { ...summary, status };
    if (output.json) {
      output.document(runJson(shown));
      return 0;
    }
    if (flags.mermaid || flags.dot) {
      if (!summary.workflow) throw new WeftError('NOT_FOUND', `Run "${runId}" has no plan yet`);
      const workflow = workflowFromJson(summary.workflow);
      output.text((flags.mermaid ? toMermaid(workflow, { statuses: true }) : toDot(workflow)).trimEnd());
      return 0;
    }
    // The JSON document has no `running`; the text can say that the run's process is still at work.
    const live = run.status === 'running' && summary.status === 'interrupted' && ownerState(run.owner) === 'alive';
    output.text(`run ${runId}: ${live ? `running (pid ${run.owner?.pid})` : shown.status}${summary.reason ? ` (${summary.reason})` : ''}`);
    output.text(`task: ${run.task.split('\n')[0]}`);
    output.text(`model: ${run.model}; plan v${summary.planVersion}; ${(summary.makespanMs / 1000).toFixed(2)} s; ${summary.calls} calls; $${summary.costUsd.toFixed(4)}`);
    // The last team attempt of each subtask, shown under it (report.md has the layers).
    const teams = new Map(events.flatMap((event) => (event.type === 'team' ? [[event.taskId, event] as const] : [])));
    for (const task of summary.tasks) {
      output.text(`  ${task.id.padEnd(12)} ${task.status.padEnd(12)} attempts ${task.attempts}${task.dependsOn.length ? `  after ${task.dependsOn.join(', ')}` : ''}`);
      const team = teams.get(task.id);
      if (team) {
        output.text(`  ${''.padEnd(12)} team ${team.team} (${team.members.join(', ')}): ${teamOutcome(team)}`);
      }
    }
    return 0;
  } finally {
    await store.close();
  }
}
