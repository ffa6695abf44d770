/**
 * A plain layered layout for plans too large for dagre: rank = the longest chain of dependencies before a subtask,
 * each rank a column, its subtasks ordered by the mean row of their dependencies (one barycenter sweep), edges
 * drawn straight. Linear in subtasks and edges. dagre on a 10,000-subtask plan with edges that skip many ranks
 * fills the heap with dummy nodes (the dashboard died out of memory on one); this keeps such a plan drawable.
 */
import type { WorkflowJson } from '../graph/workflow.js';

/** The same shape as layout-plan.ts's PlanLayout (declared here so the two files do not import each other). */
interface Placed {
  readonly id: string;
  readonly agent: string;
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}
interface Layout {
  readonly width: number;
  readonly height: number;
  readonly nodes: readonly Placed[];
  readonly edges: readonly { from: string; to: string; points: { x: number; y: number }[] }[];
}

export interface LayeredLayoutOptions {
  readonly nodeWidth: number;
  readonly nodeHeight: number;
  /** Space between columns and between rows. */
  readonly rankSep: number;
  readonly nodeSep: number;
  readonly margin: number;
}

export function layeredLayout(workflow: Pick<WorkflowJson, 'subtasks'>, options: LayeredLayoutOptions): Layout {
  const { nodeWidth, nodeHeight, rankSep, nodeSep, margin } = options;
  const subtasks = workflow.subtasks;
  const index = new Map(subtasks.map((subtask, position) => [subtask.id, position]));
  // Dependencies on unknown ids are ignored, like the dagre path; a repeated id keeps its first subtask.
  const parents = subtasks.map((subtask) => [
    ...new Set(subtask.dependsOn.map((id) => index.get(id)).filter((p): p is number => p !== undefined)),
  ]);
  const rank = longestPathRanks(parents);
  const columns: number[][] = [];
  subtasks.forEach((_subtask, position) => {
    if (index.get(subtasks[position]!.id) !== position) return;
    (columns[rank[position]!] ??= []).push(position);
  });
  const row = new Array<number>(subtasks.length).fill(0);
  for (const column of columns) {
    if (!column) continue;
    const weight = (position: number) => {
      const ups = parents[position]!;
      return ups.length === 0 ? position : ups.reduce((sum, p) => sum + row[p]!, 0) / ups.length;
    };
    const keyed = column.map((position) => ({ position, key: weight(position) }));
    keyed.sort((a, b) => a.key - b.key || a.position - b.position);
    keyed.forEach(({ position }, r) => {
      row[position] = r;
    });
  }
  const tallest = Math.max(0, ...columns.map((column) => column?.length ?? 0));
  const nodes: Placed[] = [];
  const centre = new Map<number, { x: number; y: number }>();
  columns.forEach((column, r) => {
    for (const position of column ?? []) {
      const x = margin + r * (nodeWidth + rankSep) + nodeWidth / 2;
      const y = margin + row[position]! * (nodeHeight + nodeSep) + nodeHeight / 2;
      centre.set(position, { x, y });
      const subtask = subtasks[position]!;
      nodes.push({ id: subtask.id, agent: subtask.agent, x, y, width: nodeWidth, height: nodeHeight });
    }
  });
  const edges = [];
  for (const [position, ups] of parents.entries()) {
    const to = centre.get(position);
    if (!to) continue;
    for (const parent of ups) {
      const from = centre.get(parent)!;
      edges.push({
        from: subtasks[parent]!.id,
        to: subtasks[position]!.id,
        points: [
          { x: from.x + nodeWidth / 2, y: from.y },
          { x: to.x - nodeWidth / 2, y: to.y },
        ],
      });
    }
  }
  return {
    width: margin * 2 + columns.length * (nodeWidth + rankSep) - (columns.length > 0 ? rankSep : 0),
    height: margin * 2 + tallest * (nodeHeight + nodeSep) - (tallest > 0 ? nodeSep : 0),
    nodes,
    edges,
  };
}

/**
 * Each subtask's rank: 0 without dependencies, else one more than its highest dependency. Iterative (a 10,000-deep
 * chain must not overflow the stack); a cycle, which a stored plan should not have, is broken where it is found.
 */
function longestPathRanks(parents: readonly (readonly number[])[]): number[] {
  const rank = new Array<number>(parents.length).fill(-1);
  const state = new Uint8Array(parents.length); // 0 new, 1 on the stack, 2 done
  for (let start = 0; start < parents.length; start++) {
    if (state[start] === 2) continue;
    const stack: [number, number][] = [[start, 0]];
    state[start] = 1;
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const [node, next] = top;
      const ups = parents[node]!;
      if (next < ups.length) {
        top[1] += 1;
        const parent = ups[next]!;
        if (state[parent] === 0) {
          state[parent] = 1;
          stack.push([parent, 0]);
        }
        continue;
      }
      let best = 0;
      for (const parent of ups) if (state[parent] === 2) best = Math.max(best, rank[parent]! + 1);
      rank[node] = best;
      state[node] = 2;
      stack.pop();
    }
  }
  return rank;
}
