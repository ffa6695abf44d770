/**
 * `report.md` of a run: the task, the final plan as Mermaid, each subtask's status, the cost and the plan versions.
 * Pure: takes what the run recorded, returns Markdown.
 */
import { toMermaid } from '../graph/index.js';
import type { Workflow } from '../graph/workflow.js';
import type { WorkflowDiffSummary } from './events.js';
import type { RunSummary } from './run-summary.js';

export interface ReportInput {
  readonly summary: RunSummary & { readonly reason?: string };
  readonly workflow: Workflow | undefined;
  readonly task: string;
  readonly model: string;
  readonly modelKind: 'real' | 'scripted' | 'sim';
  readonly versions: readonly { version: number; cause: string; diff?: WorkflowDiffSummary }[];
  readonly artifacts: readonly { taskId: string; path: string; bytes: number }[];
  readonly refused: readonly { taskId: string; path: string; reason: string }[];
}

export function renderReport(input: ReportInput): string {
  const { summary } = input;
  const modelLabel = input.modelKind === 'real' ? input.model : `${input.model} (${input.modelKind} model, not a real LLM)`;
  const lines: string[] = [
    `# Weft run ${summary.runId}`,
    '',
    `- Status: **${summary.status}**${input.summary.reason ? ` (${input.summary.reason})` : ''}`,
    `- Model: ${modelLabel}`,
    `- Plan version: ${summary.planVersion}`,
    `- Makespan: ${(summary.makespanMs / 1000).toFixed(2)} s`,
    `- Calls: ${summary.calls}; tokens: ${summary.tokens.input} in, ${summary.tokens.output} out; cost: $${summary.costUsd.toFixed(4)}`,
    '',
    '## Task',
    '',
    input.task.trim(),
    '',
  ];
  if (input.workflow) {
    lines.push('## Final plan', '', '```mermaid', toMermaid(input.workflow, { statuses: true, maxLabelLength: 60 }).trimEnd(), '```', '');
  }
  lines.push('## Subtasks', '', '| id | agent | status | attempts | start (s) | end (s) | objective |', '|---|---|---|---|---|---|---|');
  const agents = new Map(input.workflow?.subtasks.map((s) => [s.id, s]) ?? []);
  for (const task of summary.tasks) {
    const subtask = agents.get(task.id);
    lines.push(
      `| ${cell(task.id)} | ${cell(subtask?.agent ?? '')} | ${task.status} | ${task.attempts} | ${seconds(task.startMs)} | ${seconds(task.endMs)} | ${cell(subtask?.objective ?? '')} |`,
    );
  }
  lines.push('', '## Plan versions', '');
  for (const version of input.versions) {
    const diff = version.diff;
    const changes = diff
      ? [
          diff.added.length ? `added ${diff.added.join(', ')}` : '',
          diff.removed.length ? `removed ${diff.removed.join(', ')}` : '',
          diff.changed.length ? `changed ${diff.changed.join(', ')}` : '',
          diff.rewired.length ? `rewired ${diff.rewired.join(', ')}` : '',
        ].filter(Boolean).join('; ')
      : '';
    lines.push(`- v${version.version}: ${version.cause}${changes ? ` — ${changes}` : ''}`);
  }
  if (input.artifacts.length > 0 || input.refused.length > 0) {
    lines.push('', '## Artifacts', '');
    for (const artifact of input.artifacts) lines.push(`- \`${artifact.path}\` (${artifact.bytes} bytes, from ${artifact.taskId})`);
    for (const refused of input.refused) lines.push(`- refused \`${refused.path}\` from ${refused.taskId}: ${refused.reason}`);
  }
  return `${lines.join('\n')}\n`;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
}

function seconds(ms: number | null): string {
  return ms === null ? '' : (ms / 1000).toFixed(2);
}
