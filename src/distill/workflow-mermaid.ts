/**
 * An executable workflow as a Mermaid flowchart (`weft workflow show --mermaid`): start and end as stadiums, tools
 * as boxes, sets as rounded boxes, conditions as diamonds with dashed labelled branches, forEach as a hexagon whose
 * body edge says `each`. Ids and labels go through the shared escaping (src/text/graph-labels.ts), so no id or
 * value can break the chart or add statements to it. Pure.
 */
import { escapeMermaidLabel, graphNodeId } from '../text/graph-labels.js';
import type { ExecutableWorkflow, WorkflowNode } from './workflow.js';
import { drawnEdges, nodeDetail } from './workflow-view.js';

const SHAPES: Record<WorkflowNode['kind'], readonly [open: string, close: string]> = {
  start: ['(["', '"])'],
  end: ['(["', '"])'],
  tool: ['["', '"]'],
  set: ['("', '")'],
  condition: ['{"', '"}'],
  forEach: ['{{"', '"}}'],
};

export function workflowMermaid(workflow: Pick<ExecutableWorkflow, 'name' | 'nodes' | 'edges'>): string {
  // A comment ends at the line break, and `%%{` would start a directive: the name is escaped and kept to one line.
  const lines = ['flowchart TD', `  %% ${escapeMermaidLabel(workflow.name.replace(/\s+/g, ' ').trim())}`];
  for (const node of workflow.nodes) {
    const [open, close] = SHAPES[node.kind];
    const detail = nodeDetail(node);
    const label = detail === '' ? node.id : `${node.id}\n${detail}`;
    lines.push(`  ${graphNodeId(node.id)}${open}${escapeMermaidLabel(label)}${close}`);
  }
  for (const edge of drawnEdges(workflow)) {
    const from = graphNodeId(edge.from);
    const to = graphNodeId(edge.to);
    const label = edge.label === undefined ? undefined : `"${escapeMermaidLabel(edge.label)}"`;
    if (edge.kind === 'branch') lines.push(label ? `  ${from} -. ${label} .-> ${to}` : `  ${from} -.-> ${to}`);
    else lines.push(label ? `  ${from} -- ${label} --> ${to}` : `  ${from} --> ${to}`);
  }
  return `${lines.join('\n')}\n`;
}
