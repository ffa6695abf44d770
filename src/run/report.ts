/**
 * `report.md` of a run: the task, the final plan as Mermaid, each subtask's status and accepted output, the cost,
 * the plan versions and what each team subtask's DyLAN team did.
 * Pure: takes what the run recorded, returns Markdown.
 */
import { toMermaid } from '../graph/index.js';
import type { Workflow } from '../graph/workflow.js';
import { outputFilePath } from '../store/run-paths.js';
import { fenceFor } from '../text/fence.js';
import type { TeamSummary, WeftEvent, WorkflowDiffSummary } from './events.js';
import { TOOL_FAILURE_MARK, toolFailureWarning } from './tool-call-count.js';
import { toolCallLine, toolCallViews } from './tool-call-lines.js';
import type { PlanHistory } from './plan-history.js';
import { runResult } from './run-result.js';
import type { RunSummary } from './run-summary.js';

/** An output longer than this (characters or lines) is cut in the report; its file has all of it. */
const OUTPUT_CHARS = 2000;
const OUTPUT_LINES = 40;

export interface ReportInput {
  readonly summary: RunSummary & { readonly reason?: string };
  readonly workflow: Workflow | undefined;
  readonly task: string;
  readonly model: string;
  readonly modelKind: 'real' | 'scripted' | 'sim';
  readonly versions: readonly { version: number; cause: string; diff?: WorkflowDiffSummary }[];
  readonly artifacts: readonly { taskId: string; path: string; bytes: number }[];
  readonly refused: readonly { taskId: string; path: string; reason: string }[];
  /** The `team` events of the run, in order (a subtask retried has several; the last one is shown). */
  readonly teams?: readonly TeamSummary[];
  /** The run's `tool-call` and `tool-result` events, in order. */
  readonly toolEvents?: readonly WeftEvent[];
  /** The plan history from the log: what each version made run again and its changed ratio. */
  readonly history?: PlanHistory;
}

export function renderReport(input: ReportInput): string {
  const { summary } = input;
  const modelLabel =
    input.modelKind === 'real' ? input.model : `${input.model} (${input.modelKind} model, not a real LLM)`;
  const lines: string[] = [
    `# Weft run ${summary.runId}`,
    '',
    `- Status: **${summary.status}**${input.summary.reason ? ` (${input.summary.reason})` : ''}`,
    `- Model: ${modelLabel}`,
    `- Plan version: ${summary.planVersion}`,
    `- Makespan: ${(summary.makespanMs / 1000).toFixed(2)} s`,
    `- Calls: ${summary.calls}; tokens: ${summary.tokens.input} in, ${summary.tokens.output} out; cost: $${summary.costUsd.toFixed(4)}${summary.toolCalls > 0 ? `; tool calls: ${summary.toolCalls}${summary.toolCallsFailed > 0 ? ` (${summary.toolCallsFailed} failed)` : ''}` : ''}`,
    '',
    '## Task',
    '',
    input.task.trim(),
    '',
  ];
  if (input.workflow) {
    const warned = new Set(summary.tasks.filter((task) => toolFailureWarning(task) !== undefined).map((t) => t.id));
    lines.push(
      '## Final plan',
      '',
      '```mermaid',
      toMermaid(input.workflow, { statuses: true, maxLabelLength: 60, warned }).trimEnd(),
      '```',
      '',
    );
  }
  // The tool calls column only for runs that made some: a run without tools keeps the table it always had.
  const tools = summary.toolCalls > 0;
  lines.push(
    '## Subtasks',
    '',
    `| id | agent | status | attempts |${tools ? ' tool calls |' : ''} start (s) | end (s) | objective |`,
    `|---|---|---|---|${tools ? '---|' : ''}---|---|---|`,
  );
  const agents = new Map(input.workflow?.subtasks.map((s) => [s.id, s]) ?? []);
  const warnings: string[] = [];
  for (const task of summary.tasks) {
    const subtask = agents.get(task.id);
    const warning = toolFailureWarning(task);
    if (warning !== undefined) warnings.push(`- ${TOOL_FAILURE_MARK} ${cell(task.id)} completed, but ${warning}.`);
    const calls = task.toolCallsFailed > 0 ? `${task.toolCalls} (${task.toolCallsFailed} failed)` : `${task.toolCalls}`;
    lines.push(
      `| ${cell(task.id)} | ${cell(subtask?.agent ?? '')} | ${task.status}${warning !== undefined ? ` ${TOOL_FAILURE_MARK}` : ''} | ${task.attempts} |${tools ? ` ${calls} |` : ''} ${seconds(task.startMs)} | ${seconds(task.endMs)} | ${cell(subtask?.objective ?? '')} |`,
    );
  }
  if (warnings.length > 0)
    lines.push(
      '',
      ...warnings,
      '',
      'Their outputs may claim what a failed call did not do: check them against the tool calls below.',
    );
  lines.push(...renderOutputs(summary));
  const history = input.history;
  lines.push('', '## Plan versions', '');
  for (const version of input.versions) {
    const diff = version.diff;
    const changes = diff
      ? [
          diff.added.length ? `added ${diff.added.join(', ')}` : '',
          diff.removed.length ? `removed ${diff.removed.join(', ')}` : '',
          diff.changed.length ? `changed ${diff.changed.join(', ')}` : '',
          diff.rewired.length ? `rewired ${diff.rewired.join(', ')}` : '',
        ]
          .filter(Boolean)
          .join('; ')
      : '';
    const recorded = history?.versions.find((entry) => entry.version === version.version);
    const ratio = recorded?.changedRatio;
    lines.push(
      `- v${version.version}: ${version.cause}${changes ? ` — ${changes}` : ''}${ratio != null ? ` (changed ratio ${percent(ratio)})` : ''}`,
    );
    for (const work of recorded?.discarded ?? []) lines.push(`  - ${work.id} runs again: ${work.reason}`);
  }
  const measure = history?.changes;
  if (measure && input.versions.length > 1) {
    lines.push(
      '',
      `Changed: ${measure.changedSubtasks} of the ${measure.initialSubtasks} subtasks of the first plan (${percent(measure.changedRatio)}); ` +
        `mean changed ratio per update: ${measure.meanUpdateRatio === null ? '-' : percent(measure.meanUpdateRatio)}.`,
    );
  }
  if (summary.taskCheck) {
    // Judged apart from the run's verifier (docs/algorithms.md#fault-injection).
    lines.push('', '## Task check', '', `Task success: **${summary.taskCheck.passed ? 'yes' : 'no'}**`, '');
    for (const check of summary.taskCheck.checks) {
      const exit =
        check.exitCode === undefined ? '' : check.exitCode === null ? ', no exit status' : `, exit ${check.exitCode}`;
      lines.push(
        `- ${check.method} ${cell(check.by)}: ${check.passed ? 'passed' : 'failed'}${exit}${check.timedOut ? ', stopped at its deadline' : ''}`,
      );
      if (check.detail.trim() !== '')
        lines.push('', '~~~~text', check.detail.trimEnd().replace(/^~~~~/gm, '\\~~~~'), '~~~~', '');
    }
  }
  if (input.artifacts.length > 0 || input.refused.length > 0) {
    lines.push('', '## Artifacts', '');
    for (const artifact of input.artifacts)
      lines.push(
        `- [\`${artifact.path}\`](${artifactLink(artifact.path)}) (${artifact.bytes} bytes, from ${artifact.taskId})`,
      );
    for (const refused of input.refused)
      lines.push(`- refused \`${refused.path}\` from ${refused.taskId}: ${refused.reason}`);
  }
  if (input.teams && input.teams.length > 0) lines.push('', ...renderTeams(input.teams));
  if (input.toolEvents && input.toolEvents.length > 0) lines.push('', ...renderToolCalls(input.toolEvents));
  return `${lines.join('\n')}\n`;
}

/** A link from report.md (in the run folder) to an artifact: relative, each path segment URL-encoded. */
function artifactLink(path: string): string {
  return `artifacts/${path.split('/').map(encodeURIComponent).join('/')}`;
}

/** Every tool call, under its subtask and attempt (arguments as logged: secret ones redacted). */
function percent(ratio: number): string {
  return `${(ratio * 100).toFixed(0)} %`;
}

function renderToolCalls(events: readonly WeftEvent[]): string[] {
  const lines = ['## Tool calls'];
  // Subtasks run at once, so their calls interleave in the log: one heading per attempt, in order of first call.
  const groups = new Map<string, ReturnType<typeof toolCallViews>>();
  for (const view of toolCallViews(events)) {
    const heading = `### ${view.taskId} (attempt ${view.attempt})`;
    let group = groups.get(heading);
    if (!group) groups.set(heading, (group = []));
    group.push(view);
  }
  for (const [heading, views] of groups) {
    lines.push('', heading, '');
    for (const view of views) lines.push(`${view.sequence + 1}. \`${toolCallLine(view).replace(/`/g, "'")}\``);
  }
  return lines;
}

/** One section per team subtask: its agents, why they were chosen, the layers, the stop, reformation, importance. */
function renderTeams(teams: readonly TeamSummary[]): string[] {
  const last = new Map<string, TeamSummary>();
  const attempts = new Map<string, number>();
  for (const team of teams) {
    last.set(team.taskId, team);
    attempts.set(team.taskId, (attempts.get(team.taskId) ?? 0) + 1);
  }
  const lines = ['## Teams'];
  for (const team of last.values()) {
    const runs = attempts.get(team.taskId) ?? 1;
    lines.push(
      '',
      `### ${team.taskId}: team "${cell(team.team)}" (role ${cell(team.role)})`,
      '',
      `- Team file: \`${team.file}\`; answers compared as ${team.kind}; task type ${cell(team.taskType)}`,
      `- Attempt ${team.attempt}${runs > 1 ? ` (${runs} team runs for this subtask; the last is shown)` : ''}`,
      `- Agents: ${team.members.join(', ')}${team.selection.leftOut.length > 0 ? `; left out: ${team.selection.leftOut.join(', ')}` : ''}`,
      `- Selection: ${cell(team.selection.reason)}`,
      `- Answer: ${cell(team.answer)}`,
      `- Stopped at step ${team.stoppedAt} (${team.stopReason === 'consensus' ? 'consensus: more than 2/3 agreed' : 'maximum steps reached'}); ${team.calls} calls`,
    );
    if (team.reformation) {
      const r = team.reformation;
      lines.push(
        `- Reformation after step ${r.afterStep}: kept ${r.kept.join(', ')}; dropped ${r.dropped.join(', ') || 'none'}${r.fallback ? ' (ranker fallback)' : ''}: ${cell(r.reason)}`,
      );
    }
    if (team.ratingFallbacks > 0 || team.rankerFallbacks > 0) {
      lines.push(
        `- Fallbacks: ${team.ratingFallbacks} unreadable rating(s), ${team.rankerFallbacks} unusable ranker answer(s)`,
      );
    }
    lines.push(
      `- Importance scores ${team.scores.saved ? 'added to the run store' : `not stored (${cell(team.scores.reason ?? 'unknown reason')})`}`,
    );
    const dropped = new Set(team.reformation?.dropped ?? []);
    lines.push('', '| agent | importance | stored mean before | status |', '|---|---|---|---|');
    const stored = new Map((team.selection.scores ?? []).map((score) => [score.agent, score]));
    const agents = [...team.members].sort(
      (a, b) => (team.importance[b] ?? 0) - (team.importance[a] ?? 0) || (a < b ? -1 : a > b ? 1 : 0),
    );
    for (const agent of [...agents, ...team.selection.leftOut]) {
      const status = team.selection.leftOut.includes(agent) ? 'left out' : dropped.has(agent) ? 'dropped' : 'kept';
      const before = stored.get(agent);
      const importance = team.importance[agent];
      lines.push(
        `| ${cell(agent)} | ${importance === undefined ? '' : importance.toFixed(4)} | ${before ? `${before.mean.toFixed(4)} (${before.queries})` : ''} | ${status} |`,
      );
    }
    lines.push('', '| step | agent | answer |', '|---|---|---|');
    team.layers.forEach((layer, index) => {
      for (const node of layer)
        lines.push(
          `| ${index + 1} | ${cell(node.agent)} | ${cell(node.answer)}${node.ratingsParsed ? '' : ' (ratings unreadable)'} |`,
        );
    });
  }
  return lines;
}

/** Each accepted output in plan order, the run's result (its sink subtasks) marked; long ones cut with a pointer. */
function renderOutputs(summary: RunSummary): string[] {
  const withOutput = summary.tasks.filter((task) => task.output !== undefined);
  if (withOutput.length === 0) return [];
  const result = new Set(runResult(summary.tasks)?.from ?? []);
  const lines = ['', '## Outputs'];
  for (const task of withOutput) {
    const output = task.output as string;
    const file = outputFilePath(task.id, withOutput.length);
    const kept = clip(output);
    lines.push('', `### ${cell(task.id)}${result.has(task.id) ? ' (final result)' : ''}`, '');
    // The output is the agent's text: fence it (longer than any backtick run inside) so it cannot restructure the report.
    const fence = fenceFor(output);
    lines.push(`${fence}text`, kept.trimEnd(), fence);
    lines.push(
      '',
      kept.length < output.length
        ? `Truncated (${output.length} characters in all): the whole output is in \`${file}\`.`
        : `File: \`${file}\``,
    );
  }
  return lines;
}

function clip(text: string): string {
  const byLines = text.split('\n').slice(0, OUTPUT_LINES).join('\n');
  return byLines.length > OUTPUT_CHARS ? byLines.slice(0, OUTPUT_CHARS) : byLines;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
}

function seconds(ms: number | null): string {
  return ms === null ? '' : (ms / 1000).toFixed(2);
}
