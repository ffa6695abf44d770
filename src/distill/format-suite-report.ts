/**
 * The text of `weft distill eval`: a table per variant (one row per task, then the overall row), then the
 * variants side by side. The f1 columns are WorfEval against each task's reference (`-` without one). Pure.
 */
import type { SuiteReport } from './evaluate-suite.js';
import type { TaskEvaluation, VariantSummary } from './suite-metrics.js';

const percent = (value: number) => `${(100 * value).toFixed(1)}%`;
const f1 = (value: number | undefined) => (value === undefined ? '-' : value.toFixed(3));
const yes = (value: boolean) => (value ? 'yes' : 'no');

export function formatSuiteReport(report: SuiteReport): string[] {
  const lines: string[] = [];
  if (report.simulated)
    lines.push('simulated: the numbers describe a simulation with a sim or scripted model, not a real model');
  for (const summary of report.variants) {
    const rows = report.tasks.filter((task) => task.variant === summary.variant).map((task) => taskRow(task));
    lines.push('', `variant ${summary.variant}`);
    lines.push(...table(TASK_HEADER, [...rows, overallRow(summary)]));
    for (const task of report.tasks.filter((entry) => entry.variant === summary.variant && entry.error !== undefined))
      lines.push(`  ${task.task}: failed: ${task.error}`);
    for (const task of report.tasks.filter((entry) => entry.variant === summary.variant && entry.worfError))
      lines.push(`  ${task.task}: no WorfEval score: ${task.worfError}`);
  }
  lines.push('', 'overall');
  lines.push(
    ...table(
      [
        'variant',
        'tasks',
        'CRate',
        'TRate',
        'exec compl',
        'traces ok',
        'graph valid',
        'both',
        'mixed',
        'f1 chain',
        'f1 graph',
        'exec LLM',
        'calls',
        'tokens',
        'cost $',
      ],
      report.variants.map((summary) => [
        summary.variant,
        String(summary.tasks),
        percent(summary.caseRate),
        percent(summary.testPassRate),
        percent(summary.executionCompleteness),
        percent(summary.traceSuccessRate),
        percent(summary.graphValidity),
        percent(summary.both),
        percent(summary.mixedCallRate),
        f1(summary.worf?.f1_chain),
        f1(summary.worf?.f1_graph),
        String(summary.execLlmCalls),
        String(summary.usage.calls),
        String(summary.usage.inputTokens + summary.usage.outputTokens),
        summary.usage.costUsd.toFixed(4),
      ]),
    ),
  );
  if (report.cancelled)
    lines.push(`cancelled: the report covers ${report.cancelled.finished} of ${report.cancelled.of} task runs`);
  return lines;
}

const TASK_HEADER = [
  'task',
  'correct',
  'tests',
  'solved',
  'traces ok',
  'valid',
  'mixed',
  'f1 chain',
  'f1 graph',
  'exec LLM',
  'calls',
  'tokens',
];

function taskRow(task: TaskEvaluation): string[] {
  return [
    task.task,
    task.error !== undefined ? 'error' : yes(task.correct),
    `${task.passed}/${task.tests}`,
    `${task.solvedInputs}/${task.trainInputs}`,
    `${task.successfulTraces}/${task.trainTraces}`,
    yes(task.graphValid),
    String(task.mixedCalls),
    f1(task.worf?.f1_chain),
    f1(task.worf?.f1_graph),
    String(task.execLlmCalls),
    String(task.usage.calls),
    String(task.usage.inputTokens + task.usage.outputTokens),
  ];
}

function overallRow(summary: VariantSummary): string[] {
  return [
    'overall',
    `${summary.correct}/${summary.tasks}`,
    `${summary.passed}/${summary.tests}`,
    percent(summary.executionCompleteness),
    percent(summary.traceSuccessRate),
    percent(summary.graphValidity),
    String(summary.mixedCalls),
    f1(summary.worf?.f1_chain),
    f1(summary.worf?.f1_graph),
    String(summary.execLlmCalls),
    String(summary.usage.calls),
    String(summary.usage.inputTokens + summary.usage.outputTokens),
  ];
}

/** A plain-text table: the first column left-aligned, the others right-aligned. */
function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => row[column]?.length ?? 0)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}
