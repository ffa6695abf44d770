/**
 * Writes a workflow in WorfBench's dominant gold form: `Node:`, one `k: text` line per node, then every edge on
 * one `Edge:` line. `parseWorkflowText` reads it back unchanged when the node texts are single-line and trimmed.
 */
import type { WorkflowText } from './workflow-text.js';

export function formatWorkflowText(workflow: WorkflowText): string {
  // A line break inside a node text would end the node line; a space keeps the text readable and the list whole.
  const nodes = workflow.nodes.map((text, index) => `${index + 1}: ${text.replace(/\s*[\r\n]+\s*/g, ' ').trim()}`);
  const edges = workflow.edges.map(([from, to]) => `(${from},${to})`).join(' ');
  return ['Node:', ...nodes, edges === '' ? 'Edge:' : `Edge: ${edges}`].join('\n');
}
