/**
 * An executable workflow as a Graphviz digraph (`weft workflow show --dot`): start and end as ovals, conditions as
 * diamonds whose branches are dashed and labelled, forEach as a hexagon with its body edge labelled `each`. Ids and
 * labels go through the shared escaping (src/text/graph-labels.ts). Pure.
 */
import { escapeDotLabel, graphNodeId } from '../text/graph-labels.js';
import type { ExecutableWorkflow, WorkflowNode } from './workflow.js';
import { drawnEdges, nodeDetail } from './workflow-view.js';

const SHAPES: Record<WorkflowNode['kind'], string> = {
  start: 'oval',
  end: 'oval',
  tool: 'box',
  set: 'box, style=rounded',
  condition: 'diamond',
  forEach: 'hexagon',
};

export function workflowDot(workflow: Pick<ExecutableWorkflow, 'name' | 'nodes' | 'edges'>): string {
  const lines = [
    'digraph workflow {',
    `  label="${escapeDotLabel(workflow.name)}";`,
    '  labelloc=t;',
    '  rankdir=TB;',
    '  node [shape=box];',
  ];
  for (const node of workflow.nodes) {
    const detail = nodeDetail(node);
    const label = detail === '' ? node.id : `${node.id}\n${detail}`;
    lines.push(`  ${graphNodeId(node.id)} [label="${escapeDotLabel(label)}", shape=${SHAPES[node.kind]}];`);
  }
  for (const edge of drawnEdges(workflow)) {
    const attributes = [
      ...(edge.label !== undefined ? [`label="${escapeDotLabel(edge.label)}"`] : []),
      ...(edge.kind === 'branch' ? ['style=dashed'] : []),
    ];
    const suffix = attributes.length > 0 ? ` [${attributes.join(', ')}]` : '';
    lines.push(`  ${graphNodeId(edge.from)} -> ${graphNodeId(edge.to)}${suffix};`);
  }
  lines.push('}');
  return `${lines.join('\n')}\n`;
}
