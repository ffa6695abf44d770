/**
 * Positions for a plan's DAG, computed with dagre on the server; the page only draws them as SVG. dagre's default
 * ranker (network simplex) gives the tidiest layers but grows fast with size (1,000 nodes took 8.5 s here), so
 * larger plans are ranked by longest path instead, and the largest laid out without dagre (layered-layout.ts).
 */
import dagre from '@dagrejs/dagre';
import type { WorkflowJson } from '../graph/workflow.js';
import { graphKeys } from './graph-keys.js';
import { layeredLayout } from './layered-layout.js';
import type { PlanLayout } from './plan-layout.js';

export type { LaidOutEdge, LaidOutNode, PlanLayout } from './plan-layout.js';

export const NODE_WIDTH = 168;
export const NODE_HEIGHT = 44;
/** Above this many subtasks, the fast ranker. */
export const FAST_LAYOUT_ABOVE = 400;
/** Above this many, not dagre at all (its time grows much faster than the plan, see layered-layout.ts). */
export const LAYERED_LAYOUT_ABOVE = 1_000;

export function layoutPlan(workflow: Pick<WorkflowJson, 'subtasks'>): PlanLayout {
  if (workflow.subtasks.length > LAYERED_LAYOUT_ABOVE)
    return layeredLayout(workflow, {
      nodeWidth: NODE_WIDTH,
      nodeHeight: NODE_HEIGHT,
      nodesep: 8,
      ranksep: 36,
      margin: 12,
    });
  const graph = new dagre.graphlib.Graph();
  const large = workflow.subtasks.length > FAST_LAYOUT_ABOVE;
  graph.setGraph({
    rankdir: 'LR',
    nodesep: large ? 8 : 18,
    ranksep: large ? 36 : 56,
    marginx: 12,
    marginy: 12,
    ...(large ? { ranker: 'longest-path' } : {}),
  });
  graph.setDefaultEdgeLabel(() => ({}));
  // dagre keys plain objects by node name, so a subtask named `__proto__` would write to Object.prototype of the
  // whole server: it gets our own keys, never the plan's ids.
  const keys = graphKeys(workflow.subtasks.map((subtask) => subtask.id));
  for (const [, key] of keys) graph.setNode(key, { width: NODE_WIDTH, height: NODE_HEIGHT });
  for (const subtask of workflow.subtasks)
    for (const dependency of subtask.dependsOn) {
      const from = keys.get(dependency);
      if (from) graph.setEdge(from, keys.get(subtask.id)!);
    }
  dagre.layout(graph);
  const ids = new Map([...keys].map(([id, key]) => [key, id]));
  const agents = new Map(workflow.subtasks.map((subtask) => [subtask.id, subtask.agent]));
  const nodes = graph.nodes().map((key: string) => {
    const node = graph.node(key);
    const id = ids.get(key) ?? '';
    return { id, agent: agents.get(id) ?? '', x: node.x, y: node.y, width: node.width, height: node.height };
  });
  const edges = graph.edges().map((edge: { v: string; w: string }) => ({
    from: ids.get(edge.v) ?? '',
    to: ids.get(edge.w) ?? '',
    points: ((graph.edge(edge).points ?? []) as { x: number; y: number }[]).map((point) => ({
      x: point.x,
      y: point.y,
    })),
  }));
  const size = graph.graph();
  return { width: size.width ?? 0, height: size.height ?? 0, nodes, edges };
}
