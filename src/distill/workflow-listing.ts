/**
 * `weft workflow show`'s default view: the workflow as a text listing, one line per node (id, kind, essentials),
 * then one line per edge with its label. Terminal-safe: escape sequences and bidi overrides a value may hold are
 * shown as `\uXXXX` (inertText). Pure.
 */
import { clip } from '../text/clip.js';
import { inertText } from '../text/inert-text.js';
import type { ExecutableWorkflow } from './workflow.js';
import { drawnEdges, nodeDetail } from './workflow-view.js';

export function workflowListing(workflow: ExecutableWorkflow): string {
  const title = oneLine(workflow.name);
  const lines = [workflow.description ? `${title} — ${clip(oneLine(workflow.description), 200)}` : title];
  const inputs = Object.entries(workflow.inputs ?? {});
  if (inputs.length > 0) {
    lines.push(
      clip(
        `inputs: ${inputs.map(([name, schema]) => (typeof schema.type === 'string' ? `${name} (${clip(schema.type, 20)})` : name)).join(', ')}`,
        300,
      ),
    );
  }
  const idWidth = workflow.nodes.reduce((width, node) => Math.max(width, node.id.length), 0);
  lines.push(`nodes (${workflow.nodes.length}):`);
  for (const node of workflow.nodes) {
    const detail = nodeDetail(node, 160);
    lines.push(`  ${node.id.padEnd(idWidth)}  ${detail === '' ? node.kind : `${node.kind.padEnd(9)}  ${detail}`}`);
  }
  const edges = drawnEdges(workflow);
  lines.push(`edges (${edges.length}):`);
  for (const edge of edges) {
    const label = edge.kind === 'each' ? '  (each item)' : edge.label !== undefined ? `  when ${edge.label}` : '';
    lines.push(`  ${edge.from} → ${edge.to}${edge.label === 'default' ? '  otherwise' : label}`);
  }
  return inertText(lines.join('\n'));
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
