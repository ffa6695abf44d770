/**
 * Positions for an executable workflow's graph (distillation), computed with dagre on the server as layout-plan.ts
 * does for plans; the page draws them as SVG and styles each node by its kind (tool, condition, set, forEach, start,
 * end) and each edge by what it is (a step, a condition's labelled branch, a forEach's body).
 */
import dagre from '@dagrejs/dagre';
import type { DrawnEdgeKind } from '../distill/workflow-view.js';
import { drawnEdges, nodeDetail } from '../distill/workflow-view.js';
import type { ExecutableWorkflow, NodeKind } from '../distill/workflow.js';
import { graphKeys } from './graph-keys.js';
import { FAST_LAYOUT_ABOVE } from './layout-plan.js';

export interface WorkflowLayout {
  readonly width: number;
  readonly height: number;
  readonly nodes: readonly {
    readonly id: string;
    readonly kind: NodeKind;
    /** One line: the call, the test, the assignments, the loop (workflow-view.ts). */
    readonly detail: string;
    readonly x: number;
    readonly y: number;
    readonly width: number;
    readonly height: number;
  }[];
  readonly edges: readonly {
    readonly from: string;
    readonly to: string;
    readonly kind: DrawnEdgeKind;
    readonly label?: string;
    readonly points: readonly { readonly x: number; readonly y: number }[];
  }[];
}

const WIDTH = 200;
const HEIGHT = 48;
const SMALL = 36;

export function layoutWorkflow(workflow: Pick<ExecutableWorkflow, 'nodes' | 'edges'>): WorkflowLayout {
  const graph = new dagre.graphlib.Graph({ multigraph: true });
  const large = workflow.nodes.length > FAST_LAYOUT_ABOVE;
  graph.setGraph({
    rankdir: 'TB',
    nodesep: large ? 10 : 24,
    ranksep: large ? 30 : 44,
    marginx: 12,
    marginy: 12,
    ...(large ? { ranker: 'longest-path' } : {}),
  });
  // Our own keys for dagre, never the file's ids: dagre keys plain objects by name (`__proto__`, see layout-plan.ts).
  const keys = graphKeys(workflow.nodes.map((node) => node.id));
  for (const node of workflow.nodes) {
    const round = node.kind === 'start' || node.kind === 'end';
    graph.setNode(keys.get(node.id)!, { width: round ? SMALL * 2 : WIDTH, height: round ? SMALL : HEIGHT });
  }
  const drawn = drawnEdges(workflow).filter((edge) => keys.has(edge.from) && keys.has(edge.to));
  drawn.forEach((edge, index) => {
    graph.setEdge(
      keys.get(edge.from)!,
      keys.get(edge.to)!,
      edge.label ? { label: edge.label, width: 8 * edge.label.length, height: 14 } : {},
      String(index),
    );
  });
  dagre.layout(graph);
  const nodes = workflow.nodes.map((node) => {
    const placed = graph.node(keys.get(node.id)!);
    return {
      id: node.id,
      kind: node.kind,
      detail: nodeDetail(node, 60),
      x: placed.x,
      y: placed.y,
      width: placed.width,
      height: placed.height,
    };
  });
  const edges = drawn.map((edge, index) => {
    const placed = graph.edge(keys.get(edge.from)!, keys.get(edge.to)!, String(index)) as
      | { points?: { x: number; y: number }[] }
      | undefined;
    return {
      from: edge.from,
      to: edge.to,
      kind: edge.kind,
      ...(edge.label !== undefined ? { label: edge.label } : {}),
      points: (placed?.points ?? []).map((point) => ({ x: point.x, y: point.y })),
    };
  });
  const size = graph.graph();
  return { width: size.width ?? 0, height: size.height ?? 0, nodes, edges };
}
