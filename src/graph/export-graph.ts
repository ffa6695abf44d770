import { escapeDotLabel, escapeMermaidLabel, graphNodeId } from '../text/graph-labels.js';
import type { SubtaskStatus, Workflow } from './workflow.js';

// The escaping is shared with the other drawings (PDL graphs, executable workflows); re-exported for old callers.
export { escapeDotLabel, escapeMermaidLabel, graphNodeId };

export interface MermaidOptions {
  /** Colour each subtask by its status (one class per status). */
  readonly statuses?: boolean;
  /** Cut objectives longer than this many characters (with an ellipsis); default: no limit. */
  readonly maxLabelLength?: number;
  /**
   * Subtasks to mark with `⚠` and, with `statuses`, draw amber rather than by status: the run's summaries use it for
   * subtasks that completed although some of their tool calls failed.
   */
  readonly warned?: ReadonlySet<string>;
}

const WARNED_CLASS = { name: 'warned', style: 'fill:#fff7c2,stroke:#8a5a00,stroke-dasharray:5 3' };

const STATUS_CLASSES: Record<SubtaskStatus, { name: string; style: string }> = {
  'not started': { name: 'notStarted', style: 'fill:#f4f4f4,stroke:#9e9e9e' },
  'in progress': { name: 'inProgress', style: 'fill:#fff4cc,stroke:#d4a017' },
  completed: { name: 'completed', style: 'fill:#d9f2d9,stroke:#2e7d32' },
  failed: { name: 'failed', style: 'fill:#f8d7da,stroke:#c62828' },
};

/** A Mermaid flowchart, top to bottom; each node shows `id: objective`. */
export function toMermaid(workflow: Pick<Workflow, 'subtasks'>, options: MermaidOptions = {}): string {
  const lines = ['flowchart TD'];
  for (const subtask of workflow.subtasks) {
    const mark = options.warned?.has(subtask.id) ? '⚠ ' : '';
    lines.push(
      `  ${graphNodeId(subtask.id)}["${escapeMermaidLabel(`${mark}${subtask.id}: ${shorten(subtask.objective, options.maxLabelLength)}`)}"]`,
    );
  }
  for (const subtask of workflow.subtasks) {
    for (const dependency of new Set(subtask.dependsOn))
      lines.push(`  ${graphNodeId(dependency)} --> ${graphNodeId(subtask.id)}`);
  }
  if (options.statuses) {
    const warned = (id: string) => options.warned?.has(id) === true;
    const used = new Set(workflow.subtasks.filter((subtask) => !warned(subtask.id)).map((subtask) => subtask.status));
    for (const [status, { name, style }] of Object.entries(STATUS_CLASSES)) {
      if (used.has(status as SubtaskStatus)) lines.push(`  classDef ${name} ${style}`);
    }
    if (workflow.subtasks.some((subtask) => warned(subtask.id)))
      lines.push(`  classDef ${WARNED_CLASS.name} ${WARNED_CLASS.style}`);
    for (const subtask of workflow.subtasks)
      lines.push(
        `  class ${graphNodeId(subtask.id)} ${warned(subtask.id) ? WARNED_CLASS.name : STATUS_CLASSES[subtask.status].name}`,
      );
  }
  return `${lines.join('\n')}\n`;
}

/** A Graphviz digraph; each node shows `id: objective`. */
export function toDot(workflow: Pick<Workflow, 'subtasks'>): string {
  const lines = ['digraph workflow {', '  rankdir=TB;', '  node [shape=box];'];
  for (const subtask of workflow.subtasks) {
    lines.push(`  ${graphNodeId(subtask.id)} [label="${escapeDotLabel(`${subtask.id}: ${subtask.objective}`)}"];`);
  }
  for (const subtask of workflow.subtasks) {
    for (const dependency of new Set(subtask.dependsOn))
      lines.push(`  ${graphNodeId(dependency)} -> ${graphNodeId(subtask.id)};`);
  }
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

function shorten(text: string, limit: number | undefined): string {
  if (limit === undefined || text.length <= limit) return text;
  return `${text.slice(0, Math.max(1, limit - 1)).trimEnd()}…`;
}
