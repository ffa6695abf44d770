/**
 * What the drawings of an executable workflow show (`weft workflow show`: the text listing, Mermaid, DOT): one line
 * of essentials per node, and the edges to draw with their labels. Shared so the three views say the same thing.
 * Pure; the escaping for each syntax is the renderer's.
 */
import { expressionOf, type ExecutableWorkflow, type WorkflowEdge, type WorkflowNode } from './workflow.js';

/** How an edge is drawn: a plain step, a condition's branch (dashed, labelled), or a forEach's body (`each`). */
export type DrawnEdgeKind = 'next' | 'branch' | 'each';

export interface DrawnEdge {
  readonly from: string;
  readonly to: string;
  readonly kind: DrawnEdgeKind;
  /** `true`, `"gold"`, `default`, `each`; none for a plain step. */
  readonly label?: string;
}

/**
 * A value as a reader wants it, on one line and clipped: an expression without its `{% %}`, a literal as JSON, and
 * objects and arrays with their expressions shown the same way (`{size: "big", total: vars.total}`).
 */
export function valueText(value: unknown, limit = 80): string {
  return clipLine(compact(value, limit + 1, 0), limit);
}

/** Stops once `budget` characters are written or four levels deep, so a huge or deep value costs little. */
function compact(value: unknown, budget: number, depth: number): string {
  const expression = expressionOf(value);
  if (expression !== undefined) return expression;
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? String(value);
  if (depth >= 4) return Array.isArray(value) ? '[…]' : '{…}';
  const entries = Array.isArray(value) ? value.map((item) => [undefined, item] as const) : Object.entries(value);
  const parts: string[] = [];
  let length = 0;
  for (const [key, item] of entries) {
    if (length > budget) {
      parts.push('…');
      break;
    }
    const part = `${key === undefined ? '' : `${/^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key)}: `}${compact(item, budget - length, depth + 1)}`;
    parts.push(part);
    length += part.length + 2;
  }
  return Array.isArray(value) ? `[${parts.join(', ')}]` : `{${parts.join(', ')}}`;
}

/** The node's essentials without its id: the call, the test, the assignments, the loop, the output. */
export function nodeDetail(node: WorkflowNode, limit = 120): string {
  switch (node.kind) {
    case 'start':
      return '';
    case 'end':
      return node.output === undefined ? '' : clipLine(`output ${valueText(node.output)}`, limit);
    case 'tool': {
      const args = Object.entries(node.args ?? {}).map(([name, value]) => `${name}: ${valueText(value, 40)}`);
      return clipLine(`${node.tool}(${args.join(', ')})${node.out ? ` → ${node.out}` : ''}`, limit);
    }
    case 'condition':
      return clipLine(expressionOf(node.expr) ?? node.expr, limit);
    case 'set':
      return clipLine(
        Object.entries(node.values)
          .map(([name, value]) => `${name} = ${valueText(value, 40)}`)
          .join(', '),
        limit,
      );
    case 'forEach': {
      const parts = [`for each ${node.as ?? 'item'} in ${valueText(node.items, 60)}`, `body ${node.body}`];
      if (node.result !== undefined) parts.push(`collect ${valueText(node.result, 40)}`);
      if (node.out) parts.push(`into ${node.out}`);
      return clipLine(parts.join(', '), limit);
    }
  }
}

/** The label of a condition's edge: its `when` value as JSON (so `"true"` and `true` differ), or `default`. */
export function branchLabel(edge: Pick<WorkflowEdge, 'when' | 'default'>): string | undefined {
  const labels = [
    ...(edge.when !== undefined ? [JSON.stringify(edge.when)] : []),
    ...(edge.default === true ? ['default'] : []),
  ];
  return labels.length > 0 ? clipLine(labels.join(' / '), 60) : undefined;
}

/**
 * Every edge to draw, in the file's order, each once: a forEach's body edge is labelled `each` (and added after the
 * file's edges where the file leaves it implicit); a condition's edges and any edge with `when` or
 * `default` are branches.
 */
export function drawnEdges(workflow: Pick<ExecutableWorkflow, 'nodes' | 'edges'>): DrawnEdge[] {
  const byId = new Map(workflow.nodes.map((node) => [node.id, node]));
  const drawn: DrawnEdge[] = [];
  const bodyDrawn = new Set<string>();
  for (const edge of workflow.edges) {
    const from = byId.get(edge.from);
    if (from?.kind === 'forEach' && edge.to === from.body && !bodyDrawn.has(from.id)) {
      bodyDrawn.add(from.id);
      drawn.push({ from: edge.from, to: edge.to, kind: 'each', label: 'each' });
      continue;
    }
    const label = branchLabel(edge);
    if (from?.kind === 'condition' || label !== undefined)
      drawn.push({ from: edge.from, to: edge.to, kind: 'branch', ...(label !== undefined ? { label } : {}) });
    else drawn.push({ from: edge.from, to: edge.to, kind: 'next' });
  }
  for (const node of workflow.nodes) {
    if (node.kind === 'forEach' && !bodyDrawn.has(node.id)) {
      bodyDrawn.add(node.id);
      drawn.push({ from: node.id, to: node.body, kind: 'each', label: 'each' });
    }
  }
  return drawn;
}

function clipLine(text: string, limit: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= limit ? line : `${line.slice(0, Math.max(1, limit - 1)).trimEnd()}…`;
}
