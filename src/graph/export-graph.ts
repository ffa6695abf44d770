import type { SubtaskStatus, Workflow } from './workflow.js';

export interface MermaidOptions {
  /** Colour each subtask by its status (one class per status). */
  readonly statuses?: boolean;
  /** Cut objectives longer than this many characters (with an ellipsis); default: no limit. */
  readonly maxLabelLength?: number;
}

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
    lines.push(
      `  ${graphNodeId(subtask.id)}["${escapeMermaidLabel(`${subtask.id}: ${shorten(subtask.objective, options.maxLabelLength)}`)}"]`,
    );
  }
  for (const subtask of workflow.subtasks) {
    for (const dependency of new Set(subtask.dependsOn))
      lines.push(`  ${graphNodeId(dependency)} --> ${graphNodeId(subtask.id)}`);
  }
  if (options.statuses) {
    const used = new Set(workflow.subtasks.map((subtask) => subtask.status));
    for (const [status, { name, style }] of Object.entries(STATUS_CLASSES)) {
      if (used.has(status as SubtaskStatus)) lines.push(`  classDef ${name} ${style}`);
    }
    for (const subtask of workflow.subtasks)
      lines.push(`  class ${graphNodeId(subtask.id)} ${STATUS_CLASSES[subtask.status].name}`);
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

/**
 * A node id both Mermaid and Graphviz accept, derived from the subtask id alone (so it is stable
 * across exports) and one-to-one: letters and digits stay, every other character becomes `_<hex>_`.
 * The `n_` prefix keeps ids such as `end` or `graph` from reading as keywords.
 */
export function graphNodeId(id: string): string {
  let encoded = 'n_';
  for (const character of id) {
    encoded += /^[A-Za-z0-9]$/.test(character) ? character : `_${(character.codePointAt(0) ?? 0).toString(16)}_`;
  }
  return encoded;
}

/**
 * Text safe inside a quoted Mermaid label: characters Mermaid treats as syntax or HTML become entity
 * codes (`#34;`), line breaks become `<br/>`, other control characters become spaces.
 */
export function escapeMermaidLabel(text: string): string {
  return text
    .split(/\r\n|\r|\n/)
    .map((line) =>
      line
        .replace(/[\u0000-\u001f\u007f]/g, ' ')
        .replace(/["#&<>[\]{}()|`\\]/g, (character) => `#${character.charCodeAt(0)};`),
    )
    .join('<br/>');
}

/** Text safe inside a quoted DOT label: backslashes and quotes escaped, line breaks as `\n`. */
export function escapeDotLabel(text: string): string {
  return text
    .split(/\r\n|\r|\n/)
    .map((line) => line.replace(/[\u0000-\u001f\u007f]/g, ' ').replace(/[\\"]/g, (character) => `\\${character}`))
    .join('\\n');
}

function shorten(text: string, limit: number | undefined): string {
  if (limit === undefined || text.length <= limit) return text;
  return `${text.slice(0, Math.max(1, limit - 1)).trimEnd()}…`;
}
